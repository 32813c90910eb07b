package dev.distlock.redis;

import java.time.Instant;

import dev.distlock.LockLease;

/**
 * An owner-free hold of one lock of a {@link RedisLockRegistry}.
 */
final class RedisLockLease implements LockLease {

	private final RedisLockRegistry registry;

	private final RedisHold hold;

	RedisLockLease(RedisLockRegistry registry, RedisHold hold) {
		this.registry = registry;
		this.hold = hold;
	}

	@Override
	public String name() {
		return this.hold.lock.name;
	}

	@Override
	public long fencingToken() {
		return this.hold.fencingToken;
	}

	@Override
	public boolean isValid() {
		return this.hold.isValid();
	}

	@Override
	public Instant acquiredAt() {
		return this.hold.acquiredAt;
	}

	@Override
	public void release() {
		this.registry.release(this.hold, 0);
	}

	@Override
	public String toString() {
		return "LockLease '" + name() + "' (fencing token " + fencingToken() + ")";
	}

}
