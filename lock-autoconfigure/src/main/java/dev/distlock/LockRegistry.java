package dev.distlock;

import java.time.Duration;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Entry point for programmatic locking: thread-owned reentrant {@link FencedLock}s and
 * owner-free {@link LockLease}s on Redis.
 *
 * <p>
 * A name passed here gets {@code distlock.key-prefix} in front and nothing else: the
 * lock's Redis key is exactly {@code <key-prefix><name>}. A {@code @DistributedLock}
 * method without a key and {@code obtain(name)} with the same name are the same lock. A
 * name must not contain {@code !}, which distlock keeps for the keys of a lock's helpers
 * such as its fencing key: {@code obtain} and {@code tryAcquire} reject it with an
 * {@link IllegalArgumentException}.
 *
 * <p>
 * Every method that takes a name as a {@link String} has a twin that takes a
 * {@link LockName}, for the same lock: {@code obtain("invoices:acme")} and
 * {@code obtain(LockName.keyed("invoices", "acme"))} hold one Redis key. A {@code String}
 * is a name given whole, and metrics and traces are tagged with all of it; a keyed
 * {@code LockName} is tagged with its base, its key value only in traces. Pass a keyed
 * name when a part of the name varies per call, such as a tenant or an order id, so that
 * metrics keep a bounded set of tags. The {@code LockName} twins default to their
 * {@code String} twins, for a registry that reports to no {@link LockObserver}.
 *
 * <p>
 * Leases from {@link #acquire} and {@link #tryAcquire} are renewed by the watchdog until
 * released, with the TTL {@code distlock.lease-time}.
 *
 * @since 0.1.0
 * @see FencedLock
 * @see LockLease
 */
public interface LockRegistry {

	/**
	 * Return the thread-owned, reentrant lock of the given name. Obtaining is free:
	 * nothing is sent to Redis until the lock is acquired. Calls with the same name
	 * return equal locks (the same hash code too), so they may be kept in a {@code Set}
	 * or as keys of a {@code Map}.
	 * @param name the lock's name
	 * @return the lock
	 */
	default FencedLock obtain(String name) {
		return obtain(name, LeaseOptions.WATCHDOG);
	}

	/**
	 * Return the thread-owned, reentrant lock of the given name, held as the options say.
	 * A reentry keeps the options of the outermost hold. Calls with the same name and
	 * equal options return equal locks; locks of one name with other options are not
	 * equal, though they are the same lock in Redis.
	 * @param name the lock's name
	 * @param options fixed lease or watchdog, and minimum hold time
	 * @return the lock
	 */
	FencedLock obtain(String name, LeaseOptions options);

	/**
	 * Return the thread-owned, reentrant lock of the given name, like
	 * {@link #obtain(String)}.
	 * @param name the lock's name
	 * @return the lock
	 */
	default FencedLock obtain(LockName name) {
		return obtain(name, LeaseOptions.WATCHDOG);
	}

	/**
	 * Return the thread-owned, reentrant lock of the given name, held as the options say,
	 * like {@link #obtain(String, LeaseOptions)}.
	 * @param name the lock's name
	 * @param options fixed lease or watchdog, and minimum hold time
	 * @return the lock
	 */
	default FencedLock obtain(LockName name, LeaseOptions options) {
		return obtain(name.value(), options);
	}

	/**
	 * Acquire an owner-free lease, waiting at most the given time.
	 * @param name the lock's name
	 * @param waitTime how long to wait; zero tries once
	 * @return the lease, to be released from any thread
	 * @throws LockAcquisitionException if not acquired in time, or interrupted
	 */
	default LockLease acquire(String name, Duration waitTime) {
		return tryAcquire(name, waitTime).orElseThrow(() -> notAcquired(name, waitTime));
	}

	/**
	 * Acquire an owner-free lease, waiting at most the given time, like
	 * {@link #acquire(String, Duration)}.
	 * @param name the lock's name
	 * @param waitTime how long to wait; zero tries once
	 * @return the lease, to be released from any thread
	 * @throws LockAcquisitionException if not acquired in time, or interrupted
	 */
	default LockLease acquire(LockName name, Duration waitTime) {
		return tryAcquire(name, waitTime).orElseThrow(() -> notAcquired(name.value(), waitTime));
	}

	/**
	 * Acquire an owner-free lease, waiting at most the given time.
	 * @param name the lock's name
	 * @param waitTime how long to wait; zero tries once
	 * @return the lease, or empty if the lock was not acquired in time
	 * @throws LockAcquisitionException if interrupted while waiting
	 */
	default Optional<LockLease> tryAcquire(String name, Duration waitTime) {
		return tryAcquire(name, waitTime, LeaseOptions.WATCHDOG);
	}

	/**
	 * Acquire an owner-free lease held as the options say, waiting at most the given
	 * time.
	 * @param name the lock's name
	 * @param waitTime how long to wait; zero tries once
	 * @param options fixed lease or watchdog, and minimum hold time
	 * @return the lease, or empty if the lock was not acquired in time
	 * @throws LockAcquisitionException if interrupted while waiting
	 */
	Optional<LockLease> tryAcquire(String name, Duration waitTime, LeaseOptions options);

	/**
	 * Acquire an owner-free lease, waiting at most the given time, like
	 * {@link #tryAcquire(String, Duration)}.
	 * @param name the lock's name
	 * @param waitTime how long to wait; zero tries once
	 * @return the lease, or empty if the lock was not acquired in time
	 * @throws LockAcquisitionException if interrupted while waiting
	 */
	default Optional<LockLease> tryAcquire(LockName name, Duration waitTime) {
		return tryAcquire(name, waitTime, LeaseOptions.WATCHDOG);
	}

	/**
	 * Acquire an owner-free lease held as the options say, waiting at most the given
	 * time, like {@link #tryAcquire(String, Duration, LeaseOptions)}.
	 * @param name the lock's name
	 * @param waitTime how long to wait; zero tries once
	 * @param options fixed lease or watchdog, and minimum hold time
	 * @return the lease, or empty if the lock was not acquired in time
	 * @throws LockAcquisitionException if interrupted while waiting
	 */
	default Optional<LockLease> tryAcquire(LockName name, Duration waitTime, LeaseOptions options) {
		return tryAcquire(name.value(), waitTime, options);
	}

	/**
	 * Return the read/write lock of the given name. Its write side is the lock that
	 * {@link #obtain(String)} returns for the name, and equal to it. Calls with the same
	 * name return equal read/write locks. Obtaining is free: nothing is sent to Redis
	 * until a side is acquired.
	 * @param name the lock's name
	 * @return the read/write lock
	 * @since 0.1.0
	 */
	FencedReadWriteLock readWriteLock(String name);

	/**
	 * Return the read/write lock of the given name, like {@link #readWriteLock(String)}.
	 * @param name the lock's name
	 * @return the read/write lock
	 */
	default FencedReadWriteLock readWriteLock(LockName name) {
		return readWriteLock(name.value());
	}

	/**
	 * Return the semaphore of the given name, giving at most the given number of permits
	 * at once. Obtaining is free: nothing is sent to Redis until a permit is taken. The
	 * number is not stored: each acquisition counts against the permits of the semaphore
	 * it is made through, so a larger number admits more holders at once and a smaller
	 * one admits nobody new until enough holders released theirs. Give a semaphore a name
	 * that no lock uses. Calls with the same name and number return equal semaphores.
	 * @param name the semaphore's name
	 * @param permits how many permits it gives at most, at least 1
	 * @return the semaphore
	 * @throws IllegalArgumentException if the name is not a valid lock name or the
	 * permits are fewer than one
	 * @since 0.1.0
	 */
	DistributedSemaphore semaphore(String name, int permits);

	/**
	 * Return the semaphore of the given name, giving at most the given number of permits
	 * at once, like {@link #semaphore(String, int)}.
	 * @param name the semaphore's name
	 * @param permits how many permits it gives at most, at least 1
	 * @return the semaphore
	 * @throws IllegalArgumentException if the permits are fewer than one
	 */
	default DistributedSemaphore semaphore(LockName name, int permits) {
		return semaphore(name.value(), permits);
	}

	/**
	 * Return whether the lock of the given name is taken now, by any process (this one
	 * too), in one round trip. It is taken when {@code obtain(name).tryLock()} in another
	 * process could not take it, waiters aside: while it is held, granted to a waiter
	 * that has not taken it up yet, or kept after its release for a minimum hold time or
	 * a lock delay; and while readers hold the read/write lock of its name, since a
	 * writer could not take it then. A name that only a semaphore uses is never locked: a
	 * semaphore is no lock, and its permits are not counted. The answer may be out of
	 * date by the time it arrives; to act on a free lock, take it.
	 * @param name the lock's name
	 * @return whether the lock is taken
	 * @throws DistributedLockException if the store cannot be reached
	 * @see #remainingLease(String)
	 */
	default boolean isLocked(String name) {
		return remainingLease(name).isPresent();
	}

	/**
	 * Return whether the lock of the given name is taken now, by any process, like
	 * {@link #isLocked(String)}.
	 * @param name the lock's name
	 * @return whether the lock is taken
	 * @throws DistributedLockException if the store cannot be reached
	 */
	default boolean isLocked(LockName name) {
		return isLocked(name.value());
	}

	/**
	 * Return how long the lock of the given name stays taken unless its holder renews it,
	 * whoever holds it, in one round trip: the time to live of its Redis key, lock delay
	 * included, or, while only readers hold the read/write lock of its name, that of the
	 * longest read share. A holder in watchdog mode keeps renewing it, so this is no
	 * promise of when the lock will be free.
	 * @param name the lock's name
	 * @return the time left, or empty when the lock is not taken
	 * ({@link #isLocked(String)} is {@code false})
	 * @throws DistributedLockException if the store cannot be reached
	 */
	Optional<Duration> remainingLease(String name);

	/**
	 * Return how long the lock of the given name stays taken unless renewed, like
	 * {@link #remainingLease(String)}.
	 * @param name the lock's name
	 * @return the time left, or empty when the lock is not taken
	 * @throws DistributedLockException if the store cannot be reached
	 */
	default Optional<Duration> remainingLease(LockName name) {
		return remainingLease(name.value());
	}

	/**
	 * Run a task holding the lock and return its result. The lock is released when the
	 * task ends, also when it throws.
	 * @param <T> the result type
	 * @param <E> the checked exception the task may throw
	 * @param name the lock's name
	 * @param waitTime how long to wait for the lock
	 * @param task the task
	 * @return the task's result
	 * @throws E as thrown by the task, unwrapped
	 * @throws LockAcquisitionException if the lock was not acquired in time
	 * @throws LockLostException if the lock was lost while the task ran
	 */
	default <T extends @Nullable Object, E extends Throwable> T executeLocked(String name, Duration waitTime,
			LockedTask<T, E> task) throws E {
		return executeLocked(LockName.of(name), waitTime, task);
	}

	/**
	 * Run a task holding the lock and return its result, like
	 * {@link #executeLocked(String, Duration, LockedTask)}.
	 * @param <T> the result type
	 * @param <E> the checked exception the task may throw
	 * @param name the lock's name
	 * @param waitTime how long to wait for the lock
	 * @param task the task
	 * @return the task's result
	 * @throws E as thrown by the task, unwrapped
	 * @throws LockAcquisitionException if the lock was not acquired in time
	 * @throws LockLostException if the lock was lost while the task ran
	 */
	default <T extends @Nullable Object, E extends Throwable> T executeLocked(LockName name, Duration waitTime,
			LockedTask<T, E> task) throws E {
		FencedLock lock = obtain(name);
		if (!lock.tryLock(waitTime)) {
			throw notAcquired(name.value(), waitTime);
		}
		T result;
		try {
			result = task.run();
		}
		catch (Throwable ex) {
			try {
				lock.unlock();
			}
			catch (RuntimeException unlockFailure) {
				ex.addSuppressed(unlockFailure);
			}
			throw ex;
		}
		lock.unlock();
		return result;
	}

	/**
	 * Return this registry's leadership of the given name: the same object on every call,
	 * not started until {@link Leadership#start()}. Its term is a hold of the lock of
	 * that name.
	 * @param name the leadership's name, which is its lock's name
	 * @return the leadership
	 * @throws UnsupportedOperationException if this registry does not elect leaders
	 */
	default Leadership leadership(String name) {
		throw new UnsupportedOperationException(getClass().getName() + " does not elect leaders");
	}

	private static LockAcquisitionException notAcquired(String name, Duration waitTime) {
		return new LockAcquisitionException(name, "Lock '" + name + "' was not acquired within " + waitTime, null);
	}

}
