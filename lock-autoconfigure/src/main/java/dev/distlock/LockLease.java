package dev.distlock;

import java.time.Instant;
import java.util.function.Consumer;

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
	 * Check that this lease still holds the lock, before a side effect that the lock must
	 * cover. Asks nothing of Redis: it is {@link #isValid()} as an exception.
	 * @throws LockLostException if the lease is no longer valid: released, lost, or past
	 * its lease without renewal
	 */
	default void assertValid() {
		if (!isValid()) {
			throw new LockLostException(name(), fencingToken(), "Lock '" + name() + "' (fencing token " + fencingToken()
					+ ") is no longer held: it was released, lost, or not renewed within its lease");
		}
	}

	/**
	 * Run the given action once this lease is found lost while held: its renewal found it
	 * expired or held by another owner, its renewals failed until its lease ran out, its
	 * fixed lease ran out, or a hand-over found that Redis no longer had it. The action
	 * runs at most once; registered on a lease found lost already, it runs at once, on
	 * the calling thread. Otherwise it runs on the thread that found the loss, after the
	 * loss was reported, holding none of the registry's locks. It never runs when the
	 * lease is released before it was found lost, nor for a loss its release finds: the
	 * release throws {@link LockLostException} instead.
	 * <p>
	 * Actions must be quick and must not throw; one that does is logged. Hand longer
	 * work, or work that waits, to an executor.
	 * @param action told of the loss
	 */
	void onLoss(Consumer<? super LockLostException> action);

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
