package dev.distlock.redis;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.thread.VirtualThreads;
import org.jspecify.annotations.Nullable;

/**
 * The locks and read shares that threads own through a registry's
 * {@link RedisFencedLock}s, by side and lock name, with their reentry counts. They are
 * thread-confined, so reentry needs no shared state: a thread re-enters a hold of a side
 * it owns without a round trip, may take the read side while it holds the write side (a
 * downgrade) but not the other way round, and leaves a hold to be released with its
 * outermost entry. A hold known lost stays owned until the thread unlocks it, but is
 * never re-entered or reported held. The caller releases a hold left: a release may hand
 * the lock over ({@link HandOver}), which asks this class whether the releasing thread
 * still reads under it.
 */
final class OwnedLocks {

	private final RedisAcquirer holds;

	/** The locks (the write sides of read/write locks too) threads own. */
	private final ThreadLocal<Map<LockName, RedisHold>> locks = new ThreadLocal<>();

	/** The read shares threads own. */
	private final ThreadLocal<Map<LockName, RedisHold>> reads = new ThreadLocal<>();

	/**
	 * Create the owned locks of one registry.
	 * @param holds takes the holds
	 */
	OwnedLocks(RedisAcquirer holds) {
		this.holds = holds;
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
		RedisHold reentered = find(side, id.name);
		if (reentered != null) {
			valid(side, reentered, "it cannot be re-entered").reentries++;
			return true;
		}
		RedisHold hold = (side == HoldKind.READ_SHARE) ? acquireRead(id, waitTime)
				: acquireWrite(id, waitTime, options);
		if (hold == null) {
			return false;
		}
		own(side, hold);
		return true;
	}

	/**
	 * Leave one hold of one side of a lock of the current thread.
	 * @return the hold when the outermost one was left (to be released), otherwise
	 * {@code null}
	 * @throws IllegalMonitorStateException if the current thread does not hold it
	 */
	@Nullable RedisHold leave(HoldKind side, LockName name) {
		RedisHold hold = get(side, name);
		if (--hold.reentries > 0) {
			return null;
		}
		Map<LockName, RedisHold> owned = of(side).get();
		owned.remove(name);
		if (owned.isEmpty()) {
			of(side).remove();
		}
		return hold;
	}

	/**
	 * Return the current thread's hold of one side of the named lock, if it owns one.
	 */
	@Nullable RedisHold find(HoldKind side, LockName name) {
		Map<LockName, RedisHold> owned = of(side).get();
		return (owned != null) ? owned.get(name) : null;
	}

	/**
	 * Return the current thread's hold of one side of the named lock.
	 * @throws IllegalMonitorStateException if it owns none
	 */
	RedisHold get(HoldKind side, LockName name) {
		RedisHold hold = find(side, name);
		if (hold == null) {
			throw new IllegalMonitorStateException(description(side) + " '" + name + "' is not held by thread '"
					+ VirtualThreads.nameOf(Thread.currentThread()) + "'");
		}
		return hold;
	}

	/**
	 * Return the current thread's hold of one side of the named lock while it is valid.
	 * @throws IllegalMonitorStateException if it owns none
	 * @throws LockLostException if the hold it owns is known lost: found lost, or past
	 * its lease
	 */
	RedisHold held(HoldKind side, LockName name) {
		return valid(side, get(side, name), "its fencing token fences nothing");
	}

	private RedisHold valid(HoldKind side, RedisHold hold, String consequence) {
		if (!hold.isValid()) {
			throw new LockLostException(hold.id.name.value(), hold.fencingToken,
					description(side) + " '" + hold.id.name + "' (fencing token " + hold.fencingToken
							+ ") was lost while thread '" + VirtualThreads.nameOf(Thread.currentThread())
							+ "' held it: " + consequence + "; unlock it, which throws LockLostException too, "
							+ "then acquire it again");
		}
		return hold;
	}

	/**
	 * Record a new hold of the current thread.
	 */
	private void own(HoldKind side, RedisHold hold) {
		Map<LockName, RedisHold> owned = of(side).get();
		if (owned == null) {
			owned = new HashMap<>();
			of(side).set(owned);
		}
		hold.owner = VirtualThreads.nameOf(Thread.currentThread());
		hold.reentries = 1;
		owned.put(hold.id.name, hold);
	}

	/**
	 * Take a read share for the current thread: at once when the thread holds the write
	 * side (a downgrade), otherwise once no writer holds or waits for the lock before it.
	 */
	private @Nullable RedisHold acquireRead(LockId id, Duration waitTime) throws InterruptedException {
		RedisHold write = find(HoldKind.EXCLUSIVE, id.name);
		return this.holds.acquireShared(SharedAttempt.read(id, (write != null) ? write.token : ""), waitTime);
	}

	/**
	 * Take the lock (the write side) for the current thread, unless the thread holds the
	 * read side: the lock would wait for the thread's own read share.
	 */
	private @Nullable RedisHold acquireWrite(LockId id, Duration waitTime, LeaseOptions options)
			throws InterruptedException {
		if (find(HoldKind.READ_SHARE, id.name) != null) {
			throw new IllegalMonitorStateException("Thread '" + Thread.currentThread().getName()
					+ "' holds the read lock of '" + id.name + "' and cannot take its write lock, which would wait "
					+ "for its own read share: a read lock cannot be upgraded; release it first");
		}
		return this.holds.acquireLock(id, waitTime, options);
	}

	/**
	 * Return the holds of one side that threads own: their locks, or their read shares.
	 */
	private ThreadLocal<Map<LockName, RedisHold>> of(HoldKind side) {
		return (side == HoldKind.READ_SHARE) ? this.reads : this.locks;
	}

	/**
	 * Return what a hold of one side is called in messages.
	 */
	private static String description(HoldKind side) {
		return (side == HoldKind.READ_SHARE) ? "Read lock" : "Lock";
	}

}
