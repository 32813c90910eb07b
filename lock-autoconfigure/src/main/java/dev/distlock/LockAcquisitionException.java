package dev.distlock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock was not acquired within its wait time, or when the waiting thread
 * was interrupted (its interrupt flag is kept).
 *
 * @since 0.1.0
 */
public class LockAcquisitionException extends DistributedLockException {

	private final String lockName;

	/**
	 * Create a new exception.
	 * @param lockName the name of the lock that was not acquired
	 * @param message what happened
	 * @param cause the interruption, if any
	 */
	public LockAcquisitionException(String lockName, String message, @Nullable Throwable cause) {
		super(message, cause);
		this.lockName = lockName;
	}

	/**
	 * Return the name of the lock that was not acquired.
	 * @return the lock name
	 */
	public String getLockName() {
		return this.lockName;
	}

}
