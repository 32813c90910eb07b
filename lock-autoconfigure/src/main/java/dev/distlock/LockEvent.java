package dev.distlock;

/**
 * What a lock registry tells about one hold: a {@link LockLostEvent} when the hold is
 * lost, a {@link LockRenewalFailedEvent} when a renewal of it failed but left time on its
 * lease. In a Spring application both are published as application events; listen with
 * {@code @EventListener} for either type, or for this one to hear both.
 *
 * @since 0.1.0
 * @see LockObserver
 */
public sealed interface LockEvent permits LockLostEvent, LockRenewalFailedEvent {

	/**
	 * Return the lock's name.
	 * @return the name, as given to the {@link LockRegistry}
	 */
	String name();

	/**
	 * Return the lock's Redis key.
	 * @return the key
	 */
	String key();

	/**
	 * Return the fencing token of the hold.
	 * @return the fencing token
	 */
	long fencingToken();

	/**
	 * Return what happened, for people to read.
	 * @return the reason
	 */
	String reason();

}
