package dev.distlock.aop;

import java.time.Duration;

import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import dev.distlock.LockRegistry;
import org.jspecify.annotations.Nullable;

/**
 * What an intercepted call takes for each of its names: the lock of the name, the read
 * side of the read/write lock of the name, or a permit of the semaphore of the name.
 */
sealed interface LockTarget {

	/** The lock of the name, which is also the write side of its read/write lock. */
	LockTarget EXCLUSIVE = new Exclusive();

	/** The read side of the read/write lock of the name. */
	LockTarget SHARED = new Shared();

	/**
	 * Return the target of a permit of the semaphore of each name.
	 * @param limit how many permits the semaphore gives, at least 1
	 * @return the target
	 */
	static LockTarget permit(int limit) {
		return new Permit(limit);
	}

	/**
	 * Take what the name stands for on behalf of the current thread.
	 * @param registry the registry
	 * @param name the name
	 * @param waitTime how long to wait
	 * @param options how a lock is held
	 * @return the hold as a lease, or {@code null} if not taken in time
	 */
	@Nullable LockLease takeForThread(LockRegistry registry, LockName name, Duration waitTime, LeaseOptions options);

	/**
	 * Take what the name stands for as a lease that any thread may release.
	 * @param registry the registry
	 * @param name the name
	 * @param waitTime how long to wait
	 * @param options how a lock is held
	 * @return the lease, or {@code null} if not taken in time
	 * @throws IllegalStateException for a target held only by a thread
	 */
	@Nullable LockLease takeOwnerFree(LockRegistry registry, LockName name, Duration waitTime, LeaseOptions options);

	/**
	 * Describe what the names stand for, as messages say it, such as
	 * {@code Lock 'order:7'}.
	 * @param names the names, joined
	 * @return the description
	 */
	String describe(String names);

	/**
	 * The lock of the name.
	 */
	record Exclusive() implements LockTarget {

		@Override
		public @Nullable LockLease takeForThread(LockRegistry registry, LockName name, Duration waitTime,
				LeaseOptions options) {
			return heldBy(registry.obtain(name, options), waitTime);
		}

		@Override
		public @Nullable LockLease takeOwnerFree(LockRegistry registry, LockName name, Duration waitTime,
				LeaseOptions options) {
			return registry.tryAcquire(name, waitTime, options).orElse(null);
		}

		@Override
		public String describe(String names) {
			return "Lock '" + names + "'";
		}

	}

	/**
	 * The read side of the read/write lock of the name, held only by a thread.
	 */
	record Shared() implements LockTarget {

		@Override
		public @Nullable LockLease takeForThread(LockRegistry registry, LockName name, Duration waitTime,
				LeaseOptions options) {
			return heldBy(registry.readWriteLock(name).readLock(), waitTime);
		}

		@Override
		public @Nullable LockLease takeOwnerFree(LockRegistry registry, LockName name, Duration waitTime,
				LeaseOptions options) {
			throw new IllegalStateException("The read side of lock '" + name + "' is held only by a thread");
		}

		@Override
		public String describe(String names) {
			return "Read lock '" + names + "'";
		}

	}

	/**
	 * A permit of the semaphore of the name, which belongs to no thread.
	 *
	 * @param limit how many permits the semaphore gives
	 */
	record Permit(int limit) implements LockTarget {

		@Override
		public @Nullable LockLease takeForThread(LockRegistry registry, LockName name, Duration waitTime,
				LeaseOptions options) {
			return takeOwnerFree(registry, name, waitTime, options);
		}

		@Override
		public @Nullable LockLease takeOwnerFree(LockRegistry registry, LockName name, Duration waitTime,
				LeaseOptions options) {
			return registry.semaphore(name, this.limit).tryAcquire(waitTime).orElse(null);
		}

		@Override
		public String describe(String names) {
			return "A permit of semaphore '" + names + "' (limit " + this.limit + ")";
		}

	}

	private static @Nullable LockLease heldBy(FencedLock lock, Duration waitTime) {
		return lock.tryLock(waitTime) ? lock.currentHold() : null;
	}

}
