package dev.distlock;

import org.jspecify.annotations.Nullable;

/**
 * Base class of every exception distlock throws. Thrown as such when Redis cannot be
 * reached or does not answer within the connection's command timeout; the Redis client's
 * error is the cause.
 *
 * @since 0.1.0
 */
public class DistributedLockException extends RuntimeException {

	/**
	 * Create a new exception.
	 * @param message what went wrong and, where there is one, what to do about it
	 */
	public DistributedLockException(String message) {
		super(message);
	}

	/**
	 * Create a new exception.
	 * @param message what went wrong and, where there is one, what to do about it
	 * @param cause the underlying error
	 */
	public DistributedLockException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
