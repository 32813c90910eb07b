package dev.distlock;

/**
 * Thrown when a lock key evaluates to {@code null} or to an empty value at call time.
 * Nothing is locked and the guarded method does not run.
 *
 * @author distlock
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
