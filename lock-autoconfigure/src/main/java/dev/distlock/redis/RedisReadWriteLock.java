package dev.distlock.redis;

import java.util.Objects;

import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import org.jspecify.annotations.Nullable;

/**
 * The read/write lock of one name of a {@link RedisLockRegistry}: its write side is the
 * registry's lock of the name, its read side a thread-owned, reentrant share of it. Both
 * sides are views, like the registry's locks: the holds and their owners live in the
 * registry. Read/write locks of one name of one registry are equal.
 */
final class RedisReadWriteLock implements FencedReadWriteLock {

	private final RegistryEngine engine;

	private final LockId id;

	private final FencedLock readLock;

	private final FencedLock writeLock;

	RedisReadWriteLock(RegistryEngine engine, LockId id) {
		this.engine = engine;
		this.id = id;
		this.readLock = new RedisFencedLock(engine, id, LeaseOptions.WATCHDOG, HoldKind.READ_SHARE);
		this.writeLock = new RedisFencedLock(engine, id, LeaseOptions.WATCHDOG, HoldKind.EXCLUSIVE);
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

	/**
	 * Return whether the other object is the read/write lock of the same name of the same
	 * registry.
	 */
	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof RedisReadWriteLock lock && this.engine == lock.engine
				&& this.id.name.equals(lock.id.name));
	}

	@Override
	public int hashCode() {
		return Objects.hash(System.identityHashCode(this.engine), this.id.name);
	}

	@Override
	public String toString() {
		return "FencedReadWriteLock '" + this.id.name + "'";
	}

}
