package dev.distlock.check;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

import dev.distlock.LockLease;
import dev.distlock.LockLostException;

/**
 * A {@link LockLease} that records its release in its {@link RecordedHold}.
 */
final class RecordedLease implements LockLease {

	private final LockLease delegate;

	private final RecordedHold hold;

	RecordedLease(LockLease delegate, RecordedHold hold) {
		this.delegate = delegate;
		this.hold = hold;
	}

	RecordedHold hold() {
		return this.hold;
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public long fencingToken() {
		return this.delegate.fencingToken();
	}

	@Override
	public boolean isValid() {
		return this.delegate.isValid();
	}

	@Override
	public Duration remainingLease() {
		return this.delegate.remainingLease();
	}

	@Override
	public void onLoss(Consumer<? super LockLostException> action) {
		this.delegate.onLoss(action);
	}

	@Override
	public void extend(Duration leaseTime) {
		this.delegate.extend(leaseTime);
	}

	@Override
	public Instant acquiredAt() {
		return this.delegate.acquiredAt();
	}

	@Override
	public void release() {
		this.hold.release(this.delegate::release);
	}

}
