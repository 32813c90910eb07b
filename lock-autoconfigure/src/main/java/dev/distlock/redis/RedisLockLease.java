package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.distlock.LockLease;
import dev.distlock.LockLostException;

/**
 * A {@link LockLease} of one hold of a {@link RedisLockRegistry}: an owner-free lease, or
 * the current hold of a thread-owned lock. The first {@link #release()} runs the given
 * release action; later ones do nothing. {@link #extend(Duration)} goes through the
 * registry's {@link HoldExtension}.
 */
final class RedisLockLease implements LockLease {

	final RedisHold hold;

	private final Runnable releaseAction;

	private final HoldExtension extension;

	private final AtomicBoolean released = new AtomicBoolean();

	RedisLockLease(RedisHold hold, Runnable releaseAction, HoldExtension extension) {
		this.hold = hold;
		this.releaseAction = releaseAction;
		this.extension = extension;
	}

	@Override
	public String name() {
		return this.hold.id.name.value();
	}

	@Override
	public long fencingToken() {
		return this.hold.fencingToken;
	}

	@Override
	public Duration remainingLease() {
		return Duration.ofNanos(Math.max(0, this.hold.validUntilNanos() - System.nanoTime()));
	}

	@Override
	public Instant acquiredAt() {
		return this.hold.acquiredAt;
	}

	@Override
	public boolean isValid() {
		return this.hold.isValid();
	}

	@Override
	public void onLoss(Consumer<? super LockLostException> action) {
		this.hold.lossActions.add(action);
	}

	@Override
	public void extend(Duration leaseTime) {
		this.extension.extend(this.hold, leaseTime);
	}

	@Override
	public void release() {
		if (this.released.compareAndSet(false, true)) {
			try {
				this.releaseAction.run();
			}
			catch (IllegalMonitorStateException ex) {
				// Refused on a thread that does not own the hold: its owner still may
				this.released.set(false);
				throw ex;
			}
		}
	}

	@Override
	public String toString() {
		return "LockLease '" + name() + "' (fencing token " + fencingToken() + ")";
	}

}
