package dev.distlock;

/**
 * Thrown when a lock key evaluates, at call time, to {@code null}, to an empty value, to
 * a value without a stable text or to more values than a call may lock. Nothing is locked
 * and the guarded method does not run.
 *
 * @since 0.1.0
 */
public class LockKeyException extends DistributedLockException {

	/**
	 * Create a new exception.
	 * @param message which method and which expression produced the bad key
	 */
	public LockKeyException(String message) {
		super(message);
	}

}
