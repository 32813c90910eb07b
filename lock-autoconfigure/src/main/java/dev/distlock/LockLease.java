package dev.distlock;

import java.time.Duration;
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
	 * Return how long this lease has left by this JVM's clock unless a renewal moves it
	 * on: its lease counted from the send time of the last renewal (or of the
	 * acquisition) that Redis confirmed, whatever became of the hold since. A lease that
	 * the registry renews without asking Redis has all of its lease left. Asks nothing of
	 * Redis. It says when the lease runs out, not whether the lease holds the lock:
	 * {@link #isValid()} says that. A leadership sleeps until it, to end a term at the
	 * latest when its lease may have run out, even while Redis stalls and no renewal
	 * answers.
	 * @return the time left, zero once the lease ran out
	 * @since 0.1.0
	 */
	Duration remainingLease();

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
	 * Extend this lease: keep the lock for the given time from now, with the same fencing
	 * token. For a fixed lease ({@link LeaseOptions#fixed}) whose work runs longer than
	 * planned, this is its new fixed lease; a lease the watchdog renews is renewed with
	 * it from then on if it is longer than its own. An extension never shortens a lease:
	 * one with more time left keeps it. Like a renewal, it refuses a lease whose time ran
	 * out, even if the lock delay still keeps the lock in Redis. One round trip.
	 * @param leaseTime how long to keep the lock from now, at least 1 ms
	 * @throws LockLostException if the lease is no longer valid (released, lost, or past
	 * its lease without renewal) or Redis no longer had it; the latter is reported as a
	 * loss
	 * @throws IllegalArgumentException if the lease time is shorter than 1 ms
	 * @throws DistributedLockException if Redis could not be reached; the lease is valid
	 * as long as before
	 * @since 0.1.0
	 */
	void extend(Duration leaseTime);

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
