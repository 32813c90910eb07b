package dev.distlock;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A distributed lock owned by the thread that acquired it, reentrant on that thread.
 * Reentry costs no Redis round trip. Obtained from {@link LockRegistry#obtain(String)}.
 *
 * <p>
 * {@link #lock()}, {@link #tryLock()} and {@link #tryLock(Duration)} throw
 * {@link DistributedLockException} when Redis cannot be reached.
 * {@link #tryLock(Duration)} throws {@link LockAcquisitionException} when the waiting
 * thread is interrupted, keeping its interrupt flag.
 *
 * <p>
 * A hold known lost (a renewal found it expired or held by another owner, its fixed lease
 * ran out, its renewals failed until its lease would run out) is never re-entered,
 * counted or reported held: every way to acquire the lock again on the owning thread
 * throws {@link LockLostException} without asking Redis, {@link #isHeldByCurrentThread()}
 * is {@code false} and {@link #fencingToken()} throws. The thread's {@link #unlock()}
 * calls leave it as they would a valid hold, the outermost one throwing
 * {@link LockLostException} as for any lost hold; the lock can then be acquired again.
 *
 * @since 0.1.0
 * @see LockRegistry
 */
public interface FencedLock extends Lock {

	/**
	 * Return the lock's name.
	 * @return the name given to the registry
	 */
	String name();

	/**
	 * Acquire the lock, waiting at most the given time.
	 * @param waitTime how long to wait; zero tries once
	 * @return whether the lock was acquired
	 * @throws LockAcquisitionException if the thread was interrupted while waiting
	 */
	boolean tryLock(Duration waitTime);

	/**
	 * Return whether the current thread holds this lock, and its hold is not known lost.
	 * @return whether the lock is held by the current thread
	 */
	boolean isHeldByCurrentThread();

	/**
	 * Return how many holds of this lock the current thread has: how many times it
	 * acquired the lock without releasing it, reentries included, like
	 * {@link java.util.concurrent.locks.ReentrantLock#getHoldCount()}. No round trip. A
	 * hold known lost is not counted.
	 * @return the current thread's holds, 0 when it does not hold the lock or its hold is
	 * known lost
	 */
	int getHoldCount();

	/**
	 * Return the fencing token of the current thread's hold.
	 * @return the fencing token
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 * @throws LockLostException if the current thread's hold is known lost
	 */
	long fencingToken();

	/**
	 * Return the current thread's hold as a lease: its name, fencing token, validity and
	 * acquisition time, also when the hold is known lost (the lease is then not valid).
	 * Releasing it leaves the hold as {@link #unlock()} does, once; a release on another
	 * thread is refused with an {@link IllegalMonitorStateException} and leaves the lease
	 * to its owner to release.
	 * @return the current hold
	 * @throws IllegalMonitorStateException if the current thread does not hold the lock
	 */
	LockLease currentHold();

	/**
	 * Not supported: a distributed lock has no conditions.
	 * @return never
	 * @throws UnsupportedOperationException always
	 */
	@Override
	default Condition newCondition() {
		throw new UnsupportedOperationException("Distributed locks do not support conditions");
	}

}
