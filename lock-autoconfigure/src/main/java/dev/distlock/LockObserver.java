package dev.distlock;

import java.time.Duration;

/**
 * Told what a lock registry does, for metrics. Called on the thread that acquired,
 * released, or noticed the loss or the failed renewal, or on a leadership's thread;
 * implementations must be quick and must not throw.
 *
 * @since 0.1.0
 */
public interface LockObserver {

	/** An observer that does nothing. */
	LockObserver NONE = new LockObserver() {
	};

	/**
	 * A lock was acquired.
	 * @param name the lock name
	 * @param waited how long the caller waited
	 */
	default void acquired(LockName name, Duration waited) {
	}

	/**
	 * A lock was not acquired within its wait time.
	 * @param name the lock name
	 * @param waited how long the caller waited
	 */
	default void notAcquired(LockName name, Duration waited) {
	}

	/**
	 * A hold was released.
	 * @param name the lock name
	 * @param held how long it was held
	 */
	default void released(LockName name, Duration held) {
	}

	/**
	 * A hold was lost.
	 * @param name the lock name
	 * @param event what was lost
	 */
	default void lost(LockName name, LockLostEvent event) {
	}

	/**
	 * A renewal of a hold failed, leaving time on its lease.
	 * @param name the lock name
	 * @param event which hold, why, and how much of its lease is left
	 */
	default void renewalFailed(LockName name, LockRenewalFailedEvent event) {
	}

	/**
	 * A leadership's term began: this instance is leader.
	 * @param name the leadership's name
	 * @param event which term
	 */
	default void leadershipGranted(LockName name, LeadershipGrantedEvent event) {
	}

	/**
	 * A leadership's term ended: this instance is no longer leader.
	 * @param name the leadership's name
	 * @param event which term, and why it ended
	 */
	default void leadershipRevoked(LockName name, LeadershipRevokedEvent event) {
	}

}
