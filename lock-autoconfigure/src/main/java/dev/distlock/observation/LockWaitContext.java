package dev.distlock.observation;

import dev.distlock.LockName;

/**
 * Context of the {@code distlock.wait} observation: one caller's wait for a lock, ended
 * {@link LockObservationResult#ACQUIRED acquired}, {@link LockObservationResult#FAILED
 * failed} (not within the wait time) or with an {@link LockObservationResult#ERROR
 * error}.
 *
 * @since 0.1.0
 */
public class LockWaitContext extends LockObservationContext {

	/**
	 * Create the context of a wait for the given lock.
	 * @param lockName the name of the lock
	 */
	public LockWaitContext(LockName lockName) {
		super(lockName, 0);
	}

}
