package dev.distlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockObserver;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Takes the holds of a registry's locks, leases and semaphores, and hands them out as
 * leases. A lock is tried in Redis by one thread of this JVM at a time, the one that
 * holds its fair local permit ({@link LocalLocks}); a shared hold (a read share, a
 * semaphore permit) is tried straight away; both through the {@link RedisAcquirer}. A
 * hold taken is told to the {@link LockObserver}, then tracked for renewal, listing and
 * loss reporting by {@link ActiveHolds}; a lease releases it through {@link HoldRelease}
 * and extends it through {@link HoldExtension}.
 */
final class HoldAcquirer {

	private final RedisAcquirer acquirer;

	private final LocalLocks locks;

	private final ActiveHolds active;

	private final LockObserver observer;

	private final HoldRelease release;

	private final HoldExtension extension;

	HoldAcquirer(RedisAcquirer acquirer, LocalLocks locks, ActiveHolds active, LockObserver observer,
			HoldRelease release, HoldExtension extension) {
		this.acquirer = acquirer;
		this.locks = locks;
		this.active = active;
		this.observer = observer;
		this.release = release;
		this.extension = extension;
	}

	/**
	 * Acquire a lock, waiting for it at most the given time; the hold is renewed or
	 * watched as its options say and told to the observer.
	 * @return the hold, or {@code null} if the lock was not acquired in time
	 */
	@Nullable RedisHold acquireLock(LockId id, Duration waitTime, LeaseOptions options) throws InterruptedException {
		Assert.isTrue(!waitTime.isNegative(), () -> "Wait time of lock '" + id.name + "' must not be negative");
		Deadline deadline = Deadline.after(waitTime);
		LockObserver.Wait wait = this.observer.waitStarted(id.name);
		LocalLock lock = this.locks.retain(id);
		boolean permitted = false;
		RedisHold hold = null;
		try {
			try {
				permitted = lock.permit.tryAcquire(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
				if (permitted) {
					hold = this.acquirer.acquire(lock, deadline, options);
				}
			}
			catch (InterruptedException | RuntimeException | Error ex) {
				wait.failed(ex);
				throw ex;
			}
			if (hold != null) {
				lock.holder.set(hold);
			}
			track(hold, wait);
			return hold;
		}
		finally {
			if (permitted) {
				lock.permit.release();
			}
			if (hold == null) {
				this.locks.release(lock);
			}
		}
	}

	/**
	 * Take a shared hold (a read share, a semaphore permit), tracked for renewal, listing
	 * and loss reporting like a lock's, and told to the observer.
	 * @param attempt the script that tries, and its arguments
	 * @param waitTime how long to wait; zero tries once
	 * @return the hold, to be given to {@link #release(RedisHold)}, or {@code null} if
	 * not taken in time
	 * @see RedisAcquirer
	 */
	@Nullable RedisHold acquireShared(SharedAttempt attempt, Duration waitTime) throws InterruptedException {
		Assert.isTrue(!waitTime.isNegative(), () -> "Wait time of '" + attempt.id().name + "' must not be negative");
		LockObserver.Wait wait = this.observer.waitStarted(attempt.id().name);
		RedisHold hold;
		try {
			hold = this.acquirer.acquire(attempt, Deadline.after(waitTime));
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			wait.failed(ex);
			throw ex;
		}
		track(hold, wait);
		return hold;
	}

	/**
	 * Start tracking a hold just taken, observed before the watchdog and the lease
	 * expiries know it, or tell the wait's observation that it ended in vain.
	 */
	private void track(@Nullable RedisHold hold, LockObserver.Wait wait) {
		if (hold != null) {
			hold.observe(wait.acquired(hold.fencingToken));
			this.active.add(hold);
		}
		else {
			wait.notAcquired();
		}
	}

	/**
	 * Return an owner-free lease of a hold, released by its first release.
	 * @param hold the hold, or {@code null} when none was taken
	 * @return the lease, or empty
	 */
	Optional<LockLease> leaseOf(@Nullable RedisHold hold) {
		return Optional.ofNullable(hold).map((held) -> lease(held, () -> release(held)));
	}

	/**
	 * Return a lease view of a hold.
	 * @param hold the hold
	 * @param releaseAction run by the lease's first release
	 * @return the lease
	 */
	LockLease lease(RedisHold hold, Runnable releaseAction) {
		return new RedisLockLease(hold, releaseAction, this.extension);
	}

	/**
	 * Release a hold.
	 * @see HoldRelease#release(RedisHold)
	 */
	void release(RedisHold hold) {
		this.release.release(hold);
	}

}
