package dev.distlock;

/**
 * What a lock registry tells about one hold: a {@link LockLostEvent} when the hold is
 * lost, a {@link LockRenewalFailedEvent} when a renewal of it failed but left time on its
 * lease; and about the holds that are a {@link Leadership}'s terms, a
 * {@link LeadershipGrantedEvent} when one begins and a {@link LeadershipRevokedEvent}
 * when it ends. In a Spring application they are published as application events; listen
 * with {@code @EventListener} for one type, or for this one to hear them all.
 *
 * @since 0.1.0
 * @see LockObserver
 */
public sealed interface LockEvent
		permits LockLostEvent, LockRenewalFailedEvent, LeadershipGrantedEvent, LeadershipRevokedEvent {

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
