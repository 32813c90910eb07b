package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import org.jspecify.annotations.Nullable;

/**
 * The locks and read shares that threads own through a registry's
 * {@link RedisFencedLock}s: a thread re-enters a hold of a side it owns without a round
 * trip, may take the read side while it holds the write side (a downgrade) but not the
 * other way round, and releases a hold when it leaves the outermost entry.
 */
final class OwnedLocks {

	private final RedisAcquirer holds;

	private final OwnedHolds locks = new OwnedHolds("Lock");

	private final OwnedHolds reads;

	/**
	 * Create the owned locks of one registry.
	 * @param holds takes and releases the holds
	 * @param reads the read shares threads own, which a hand-over also reads
	 */
	OwnedLocks(RedisAcquirer holds, OwnedHolds reads) {
		this.holds = holds;
		this.reads = reads;
	}

	/**
	 * Acquire a hold of one side of a lock for the current thread, reentering a hold of
	 * that side it already owns without a round trip.
	 * @throws LockLostException if the thread owns a hold of that side known lost: it is
	 * not re-entered, and the thread must unlock it first
	 * @param side {@link HoldKind#EXCLUSIVE} for the lock (the write side of the
	 * read/write lock of its name), {@link HoldKind#READ_SHARE} for the read side
	 * @throws IllegalMonitorStateException if the thread holds the read side and asks for
	 * the write side, which would wait for its own read share
	 */
	boolean lock(LockId id, HoldKind side, Duration waitTime, LeaseOptions options) throws InterruptedException {
		OwnedHolds holds = of(side);
		if (holds.reenter(id.name)) {
			return true;
		}
		RedisHold hold = (side == HoldKind.READ_SHARE) ? acquireRead(id, waitTime)
				: acquireWrite(id, waitTime, options);
		if (hold == null) {
			return false;
		}
		holds.add(hold);
		return true;
	}

	/**
	 * Leave one hold of one side of a lock of the current thread, releasing it when it
	 * was the outermost.
	 * @throws IllegalMonitorStateException if the current thread does not hold it
	 */
	void unlock(HoldKind side, LockName name) {
		RedisHold hold = of(side).leave(name);
		if (hold != null) {
			this.holds.release(hold);
		}
	}

	/**
	 * Return the holds of one side that the current thread owns: its locks, or its read
	 * shares.
	 */
	OwnedHolds of(HoldKind side) {
		return (side == HoldKind.READ_SHARE) ? this.reads : this.locks;
	}

	/**
	 * Take a read share for the current thread: at once when the thread holds the write
	 * side (a downgrade), otherwise once no writer holds or waits for the lock before it.
	 */
	private @Nullable RedisHold acquireRead(LockId id, Duration waitTime) throws InterruptedException {
		RedisHold write = this.locks.find(id.name);
		return this.holds.acquireShared(SharedAttempt.read(id, (write != null) ? write.token : ""), waitTime);
	}

	/**
	 * Take the lock (the write side) for the current thread, unless the thread holds the
	 * read side: the lock would wait for the thread's own read share.
	 */
	private @Nullable RedisHold acquireWrite(LockId id, Duration waitTime, LeaseOptions options)
			throws InterruptedException {
		if (this.reads.find(id.name) != null) {
			throw new IllegalMonitorStateException("Thread '" + Thread.currentThread().getName()
					+ "' holds the read lock of '" + id.name + "' and cannot take its write lock, which would wait "
					+ "for its own read share: a read lock cannot be upgraded; release it first");
		}
		return this.holds.acquireLock(id, waitTime, options);
	}

}
