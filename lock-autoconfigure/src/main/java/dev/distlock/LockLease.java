package dev.distlock;

import java.time.Instant;

/**
 * A hold on a distributed lock that no thread owns: it may be released from any thread,
 * which suits asynchronous code. Obtained from {@link LockRegistry#acquire} or
 * {@link LockRegistry#tryAcquire}; renewed by the watchdog until released.
 *
 * @since 0.1.0
 * @see LockRegistry
 */
public interface LockLease extends AutoCloseable {

	/**
	 * Return the lock's name.
	 * @return the name given to the registry
	 */
	String name();

	/**
	 * Return the fencing token of this hold: strictly greater than the token of every
	 * earlier hold of the same lock. Pass it to the resource the lock protects so that it
	 * can reject writes from a holder that lost the lock.
	 * @return the fencing token
	 */
	long fencingToken();

	/**
	 * Return whether this lease still holds the lock: {@code false} once released, lost,
	 * or past its lease without renewal.
	 * @return whether the lease is valid
	 */
	boolean isValid();

	/**
	 * Return when the lock was acquired.
	 * @return the acquisition time
	 */
	Instant acquiredAt();

	/**
	 * Release the lock. Calling it again does nothing.
	 * @throws LockLostException if the lease had been lost before the release
	 * @throws DistributedLockException if Redis could not be reached
	 */
	void release();

	/**
	 * Release the lock, as {@link #release()} does.
	 */
	@Override
	default void close() {
		release();
	}

}
