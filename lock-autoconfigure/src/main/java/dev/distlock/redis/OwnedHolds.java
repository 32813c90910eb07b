package dev.distlock.redis;

import java.util.HashMap;
import java.util.Map;

import dev.distlock.LockName;
import org.jspecify.annotations.Nullable;

/**
 * The holds of one kind that the current thread owns through {@link RedisFencedLock}s, by
 * lock name, with their reentry counts: its locks (the write sides of read/write locks
 * too), or its read shares. Thread-confined, so reentry needs no shared state.
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
