package dev.distlock.check;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;

/**
 * A {@link FencedLock}, or a side of a read/write lock, that records every hold of the
 * current thread through its {@link RecordingLockRegistry}; a reentry is no new hold, but
 * is recorded with its outcome. Only the bounded acquisitions are offered: a checker must
 * never wait without a bound.
 */
final class RecordedLock implements FencedLock {

	private final FencedLock delegate;

	private final LeaseOptions options;

	private final String api;

	private final RecordingLockRegistry registry;

	RecordedLock(FencedLock delegate, LeaseOptions options, String api, RecordingLockRegistry registry) {
		this.delegate = delegate;
		this.options = options;
		this.api = api;
		this.registry = registry;
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public boolean tryLock(Duration waitTime) {
		if (this.registry.ownsRecorded(this.delegate, this.api)) {
			return this.registry.reenterOwned(this.delegate, this.api, waitTime);
		}
		return this.registry.tryLockOwned(this.delegate, this.options, this.api, waitTime);
	}

	@Override
	public boolean tryLock() {
		return tryLock(Duration.ZERO);
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) {
		return tryLock(Duration.ofNanos(unit.toNanos(time)));
	}

	@Override
	public void lock() {
		throw new UnsupportedOperationException("The checker waits with a bound only");
	}

	@Override
	public void lockInterruptibly() {
		throw new UnsupportedOperationException("The checker waits with a bound only");
	}

	@Override
	public void unlock() {
		this.registry.ownedReleased(this.delegate, this.api, this.delegate::unlock);
	}

	@Override
	public boolean isHeldByCurrentThread() {
		return this.delegate.isHeldByCurrentThread();
	}

	@Override
	public int getHoldCount() {
		return this.delegate.getHoldCount();
	}

	@Override
	public long fencingToken() {
		return this.delegate.fencingToken();
	}

	@Override
	public LockLease currentHold() {
		return new RecordedLease(this.delegate.currentHold(), this.registry.owned(this.delegate, this.api));
	}

}
