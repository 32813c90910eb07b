package dev.distlock.leader;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The lock that guards what the threads of one {@link LockLeadership} share, and the one
 * condition they wait on, signalled whenever that changes: when a term ends or is over,
 * when the first election is decided, when the leadership stops and when its candidate
 * ends. The lock is reentrant and held for no user code and no call to the registry; a
 * wait lets it go.
 */
final class LeadershipMonitor {

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition changed = this.lock.newCondition();

	/**
	 * Run the given action holding the lock.
	 * @param action what to run
	 */
	void run(Runnable action) {
		this.lock.lock();
		try {
			action.run();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Return the result of the given action, run holding the lock.
	 * @param <T> the type of the result
	 * @param action what to run
	 * @return its result
	 */
	<T> T call(Supplier<T> action) {
		this.lock.lock();
		try {
			return action.get();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Wake the threads that wait for a change. Called holding the lock.
	 */
	void signalAll() {
		this.changed.signalAll();
	}

	/**
	 * Wait for changes while the given condition holds, whatever interrupts the calling
	 * thread. Called holding the lock.
	 * @param waiting whether to wait on, read holding the lock
	 */
	void awaitWhile(BooleanSupplier waiting) {
		while (waiting.getAsBoolean()) {
			this.changed.awaitUninterruptibly();
		}
	}

	/**
	 * Wait for changes while the given condition holds, at most the given time.
	 * @param waiting whether to wait on, read holding the lock
	 * @param nanos how long to wait at the most, in nanoseconds
	 * @throws InterruptedException if the calling thread is interrupted
	 */
	void awaitWhile(BooleanSupplier waiting, long nanos) throws InterruptedException {
		this.lock.lock();
		try {
			long left = nanos;
			while (waiting.getAsBoolean() && left > 0) {
				left = this.changed.awaitNanos(left);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Wait for a change, at most the given time. An interrupt ends the wait as a change
	 * does: only a stop interrupts the candidate, and the stop is seen through what it
	 * changed. Called holding the lock.
	 * @param nanos how long to wait at the most, in nanoseconds
	 */
	void awaitChange(long nanos) {
		try {
			this.changed.awaitNanos(nanos);
		}
		catch (InterruptedException ex) {
			// Seen through what the stop changed
		}
	}

}
