package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;

/**
 * A thread-owned view of one lock of a {@link RedisLockRegistry}. Views are cheap: the
 * hold and its owner live in the registry, so every view of the same name is the same
 * lock.
 */
final class RedisFencedLock implements FencedLock {

	private static final Duration FOREVER = Duration.ofNanos(Long.MAX_VALUE);

	private final RedisLockRegistry registry;

	private final LockId id;

	private final LeaseOptions options;

	RedisFencedLock(RedisLockRegistry registry, LockId id, LeaseOptions options) {
		this.registry = registry;
		this.id = id;
		this.options = options;
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
				if (this.registry.lockOwned(this.id, FOREVER, this.options)) {
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
		this.registry.lockOwned(this.id, FOREVER, this.options);
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
		return this.registry.lockOwned(this.id, Duration.ofNanos(unit.toNanos(time)), this.options);
	}

	@Override
	public boolean tryLock(Duration waitTime) {
		try {
			return this.registry.lockOwned(this.id, waitTime, this.options);
		}
		catch (InterruptedException ex) {
			throw RedisLockRegistry.interrupted(this.id.name.value(), ex);
		}
	}

	@Override
	public void unlock() {
		this.registry.unlockOwned(this.id.name);
	}

	@Override
	public boolean isHeldByCurrentThread() {
		return this.registry.owned().find(this.id.name) != null;
	}

	@Override
	public long fencingToken() {
		return this.registry.owned().get(this.id.name).fencingToken;
	}

	@Override
	public LockLease currentHold() {
		return new RedisLockLease(this.registry.owned().get(this.id.name), this::unlock);
	}

	@Override
	public String toString() {
		return "FencedLock '" + this.id.name + "'";
	}

}
