package dev.distlock.redis;

import java.util.HashMap;
import java.util.Map;

import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.thread.VirtualThreads;
import org.jspecify.annotations.Nullable;

/**
 * The holds of one kind that the current thread owns through {@link RedisFencedLock}s, by
 * lock name, with their reentry counts: its locks (the write sides of read/write locks
 * too), or its read shares. Thread-confined, so reentry needs no shared state. A hold
 * known lost stays owned until the thread unlocks it, but is never re-entered or reported
 * held.
 */
final class OwnedHolds {

	private final ThreadLocal<Map<LockName, RedisHold>> holds = new ThreadLocal<>();

	/** What a hold is called in messages, such as {@code Lock} or {@code Read lock}. */
	private final String description;

	OwnedHolds(String description) {
		this.description = description;
	}

	/**
	 * Return the current thread's hold of the named lock, if it owns one.
	 */
	@Nullable RedisHold find(LockName name) {
		Map<LockName, RedisHold> owned = this.holds.get();
		return (owned != null) ? owned.get(name) : null;
	}

	/**
	 * Return the current thread's hold of the named lock.
	 * @throws IllegalMonitorStateException if it owns none
	 */
	RedisHold get(LockName name) {
		RedisHold hold = find(name);
		if (hold == null) {
			throw new IllegalMonitorStateException(this.description + " '" + name + "' is not held by thread '"
					+ VirtualThreads.nameOf(Thread.currentThread()) + "'");
		}
		return hold;
	}

	/**
	 * Return the current thread's hold of the named lock while it is valid.
	 * @throws IllegalMonitorStateException if it owns none
	 * @throws LockLostException if the hold it owns is known lost: found lost, or past
	 * its lease
	 */
	RedisHold held(LockName name) {
		return valid(get(name), "its fencing token fences nothing");
	}

	/**
	 * Return whether the current thread owns a valid hold of the named lock.
	 */
	boolean isHeld(LockName name) {
		RedisHold hold = find(name);
		return hold != null && hold.isValid();
	}

	/**
	 * Enter the current thread's hold of the named lock once more, if it owns one.
	 * @return whether it owned one
	 * @throws LockLostException if the hold it owns is known lost: found lost, or past
	 * its lease; it is not entered
	 */
	boolean reenter(LockName name) {
		RedisHold hold = find(name);
		if (hold == null) {
			return false;
		}
		valid(hold, "it cannot be re-entered").reentries++;
		return true;
	}

	private RedisHold valid(RedisHold hold, String consequence) {
		if (!hold.isValid()) {
			throw new LockLostException(hold.id.name.value(), hold.fencingToken,
					this.description + " '" + hold.id.name + "' (fencing token " + hold.fencingToken
							+ ") was lost while thread '" + VirtualThreads.nameOf(Thread.currentThread())
							+ "' held it: " + consequence + "; unlock it, which throws LockLostException too, "
							+ "then acquire it again");
		}
		return hold;
	}

	/**
	 * Record a new hold of the current thread.
	 */
	void add(RedisHold hold) {
		Map<LockName, RedisHold> owned = this.holds.get();
		if (owned == null) {
			owned = new HashMap<>();
			this.holds.set(owned);
		}
		hold.owner = VirtualThreads.nameOf(Thread.currentThread());
		hold.reentries = 1;
		owned.put(hold.id.name, hold);
	}

	/**
	 * Leave one hold of the named lock.
	 * @return the hold when the outermost one was left (to be released), otherwise
	 * {@code null}
	 * @throws IllegalMonitorStateException if the current thread owns none
	 */
	@Nullable RedisHold leave(LockName name) {
		RedisHold hold = get(name);
		if (--hold.reentries > 0) {
			return null;
		}
		Map<LockName, RedisHold> owned = this.holds.get();
		owned.remove(name);
		if (owned.isEmpty()) {
			this.holds.remove();
		}
		return hold;
	}

}
