package dev.distlock.redis;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import org.jspecify.annotations.Nullable;

/**
 * A thread-owned view of one lock of a {@link RedisLockRegistry}, or of the read side of
 * the read/write lock of its name. Views are cheap: the hold and its owner live in the
 * registry, so every view of the same name and side is the same lock; views with the same
 * options too are equal.
 */
final class RedisFencedLock implements FencedLock {

	private static final Duration FOREVER = Duration.ofNanos(Long.MAX_VALUE);

	private final RegistryEngine engine;

	private final LockId id;

	private final LeaseOptions options;

	/**
	 * Which side this view takes: {@link HoldKind#EXCLUSIVE}, the lock itself (the write
	 * side of the read/write lock of its name), or {@link HoldKind#READ_SHARE}, the read
	 * side.
	 */
	private final HoldKind side;

	RedisFencedLock(RegistryEngine engine, LockId id, LeaseOptions options, HoldKind side) {
		this.engine = engine;
		this.id = id;
		this.options = options;
		this.side = side;
	}

	@Override
	public String name() {
		return this.id.name.value();
	}

	@Override
	public void lock() {
		boolean interrupted = false;
		while (true) {
			try {
				if (this.engine.owned.lock(this.id, this.side, FOREVER, this.options)) {
					break;
				}
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		this.engine.owned.lock(this.id, this.side, FOREVER, this.options);
	}

	@Override
	public boolean tryLock() {
		return tryLock(Duration.ZERO);
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		return this.engine.owned.lock(this.id, this.side, Duration.ofNanos(unit.toNanos(time)), this.options);
	}

	@Override
	public boolean tryLock(Duration waitTime) {
		try {
			return this.engine.owned.lock(this.id, this.side, waitTime, this.options);
		}
		catch (InterruptedException ex) {
			throw RedisLockRegistry.interrupted(this.id.name.value(), ex);
		}
	}

	@Override
	public void unlock() {
		RedisHold hold = this.engine.owned.leave(this.side, this.id.name);
		if (hold != null) {
			this.engine.release.release(hold);
		}
	}

	@Override
	public boolean isHeldByCurrentThread() {
		return getHoldCount() > 0;
	}

	@Override
	public int getHoldCount() {
		RedisHold hold = this.engine.owned.find(this.side, this.id.name);
		return (hold != null && hold.isValid()) ? hold.reentries : 0;
	}

	@Override
	public long fencingToken() {
		return this.engine.owned.held(this.side, this.id.name).fencingToken;
	}

	@Override
	public LockLease currentHold() {
		return this.engine.lease(this.engine.owned.get(this.side, this.id.name), this::unlock);
	}

	/**
	 * Return whether the other object is a view of the same registry with the same name,
	 * options and side: both are the same lock, held as the same options say.
	 */
	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof RedisFencedLock lock && this.engine == lock.engine
				&& this.id.name.equals(lock.id.name) && this.options.equals(lock.options) && this.side == lock.side);
	}

	@Override
	public int hashCode() {
		return Objects.hash(System.identityHashCode(this.engine), this.id.name, this.options, this.side);
	}

	@Override
	public String toString() {
		return ((this.side == HoldKind.READ_SHARE) ? "Read lock '" : "FencedLock '") + this.id.name + "'";
	}

}
