package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;

import dev.distlock.LockLease;

/**
 * A {@link LockLease} of one hold of a {@link RedisLockRegistry}: the name, fencing token
 * and acquisition time of the hold. What it is valid for, what its loss is and what its
 * release does is up to the kind of lease.
 */
abstract class HoldLease implements LockLease {

	final RedisHold hold;

	HoldLease(RedisHold hold) {
		this.hold = hold;
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

}
