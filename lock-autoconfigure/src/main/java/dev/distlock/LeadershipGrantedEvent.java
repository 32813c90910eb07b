package dev.distlock;

/**
 * Published when this instance becomes leader: a {@link Leadership} acquired the lock of
 * its name. Listen with {@code @EventListener}. Published once per term, from the
 * leadership's thread, before the {@link LeadershipRevokedEvent} that ends the term.
 *
 * <p>
 * The {@linkplain #term() term} is a {@link LockLease} for the work the leader does in
 * it: valid while the term lasts, so {@link LockLease#assertValid()} guards each side
 * effect and its {@linkplain LockLease#fencingToken() fencing token} goes with each
 * write; its {@link LockLease#onLoss onLoss} actions run when the term ends, whatever
 * ended it (a yield, a stop, the lock lost, its lease run out), just before the
 * revocation is delivered, on the thread that delivers the events. Releasing it yields
 * the term, as {@link Leadership#yieldLeadership()} does, without running those actions;
 * once the term ended it does nothing.
 *
 * @param name the leadership's name, as given to the {@link LockRegistry}
 * @param key the Redis key of its lock
 * @param fencingToken the fencing token of the term: greater than that of every earlier
 * term, on any instance
 * @param term the term, as a lease valid while it lasts
 * @since 0.1.0
 */
public record LeadershipGrantedEvent(String name, String key, long fencingToken, LockLease term) implements LockEvent {

	/**
	 * Return what happened, for people to read.
	 * @return that this instance holds the leadership's lock
	 */
	@Override
	public String reason() {
		return "this instance holds the leadership's lock";
	}

}
