package dev.distlock.redis;

import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.LeaseOptions;

/**
 * The read/write lock of one name of a {@link RedisLockRegistry}: its write side is the
 * registry's lock of the name, its read side a thread-owned, reentrant share of it. Both
 * sides are views, like the registry's locks: the holds and their owners live in the
 * registry.
 */
final class RedisReadWriteLock implements FencedReadWriteLock {

	private final LockId id;

	private final FencedLock readLock;

	private final FencedLock writeLock;

	RedisReadWriteLock(RedisLockRegistry registry, LockId id) {
		this.id = id;
		this.readLock = new RedisFencedLock(registry, id, LeaseOptions.WATCHDOG, HoldKind.READ_SHARE);
		this.writeLock = new RedisFencedLock(registry, id, LeaseOptions.WATCHDOG, HoldKind.EXCLUSIVE);
	}

	@Override
	public String name() {
		return this.id.name.value();
	}

	@Override
	public FencedLock readLock() {
		return this.readLock;
	}

	@Override
	public FencedLock writeLock() {
		return this.writeLock;
	}

	@Override
	public String toString() {
		return "FencedReadWriteLock '" + this.id.name + "'";
	}

}
