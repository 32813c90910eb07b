package dev.distlock;

/**
 * Published when this instance becomes leader: a {@link Leadership} acquired the lock of
 * its name. Listen with {@code @EventListener}. Published once per term, from the
 * leadership's thread, before the {@link LeadershipRevokedEvent} that ends the term.
 *
 * @param name the leadership's name, as given to the {@link LockRegistry}
 * @param key the Redis key of its lock
 * @param fencingToken the fencing token of the term: greater than that of every earlier
 * term, on any instance
 * @since 0.1.0
 */
public record LeadershipGrantedEvent(String name, String key, long fencingToken) implements LockEvent {

	/**
	 * Return what happened, for people to read.
	 * @return that this instance holds the leadership's lock
	 */
	@Override
	public String reason() {
		return "this instance holds the leadership's lock";
	}

}
