package dev.distlock.observation;

import dev.distlock.LockName;

/**
 * Context of the {@code distlock.hold} observation: one hold of a lock, from its
 * acquisition to its release, ended {@link LockObservationResult#RELEASED released} or
 * {@link LockObservationResult#LOST lost}.
 *
 * @since 0.1.0
 */
public class LockHoldContext extends LockObservationContext {

	/**
	 * Create the context of a hold of the given lock.
	 * @param lockName the name of the lock
	 * @param fencingToken the fencing token of the hold
	 */
	public LockHoldContext(LockName lockName, long fencingToken) {
		super(lockName, fencingToken);
	}

}
