package dev.distlock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * How a hold of a lock is kept: renewed by the watchdog or with a fixed lease, how long
 * it is kept at least, and how long it is kept from everyone when its lease runs out
 * without a release.
 *
 * @param leaseTime fixed lease after which the hold expires unrenewed, or {@code null}
 * for watchdog mode (renewed while held, TTL {@code distlock.lease-time})
 * @param minHoldTime how long after acquisition the lock stays taken even if released
 * sooner, or {@code null} for none
 * @param lockDelay how long a lock whose lease ran out without a release (its holder
 * crashed, stalled or was cut off) is granted to nobody after its expiry, or {@code null}
 * for the registry's default ({@code distlock.lock-delay}); a release within the lease
 * frees the lock at once, a release after it (the hold was lost) does not
 * @since 0.1.0
 */
public record LeaseOptions(@Nullable Duration leaseTime, @Nullable Duration minHoldTime, @Nullable Duration lockDelay) {

	/** Watchdog mode, released at once, the registry's lock delay. */
	public static final LeaseOptions WATCHDOG = new LeaseOptions(null, null, null);

	/**
	 * Validate the options.
	 */
	public LeaseOptions {
		Assert.isTrue(leaseTime == null || leaseTime.toMillis() > 0,
				() -> "'leaseTime' must be at least 1ms, was " + leaseTime);
		Assert.isTrue(minHoldTime == null || !minHoldTime.isNegative(),
				() -> "'minHoldTime' must not be negative, was " + minHoldTime);
		Assert.isTrue(lockDelay == null || !lockDelay.isNegative(),
				() -> "'lockDelay' must not be negative, was " + lockDelay);
	}

	/**
	 * Return options with a fixed lease.
	 * @param leaseTime how long each hold lasts
	 * @return the options
	 */
	public static LeaseOptions fixed(Duration leaseTime) {
		return new LeaseOptions(leaseTime, null, null);
	}

	/**
	 * Return a copy that keeps the lock at least the given time after acquisition.
	 * @param minHoldTime the minimum hold time
	 * @return the options
	 */
	public LeaseOptions withMinHoldTime(@Nullable Duration minHoldTime) {
		return new LeaseOptions(this.leaseTime, minHoldTime, this.lockDelay);
	}

	/**
	 * Return a copy with the given lock delay.
	 * @param lockDelay how long a lock whose lease ran out without a release is granted
	 * to nobody, or {@code null} for the registry's default
	 * @return the new options
	 */
	public LeaseOptions withLockDelay(@Nullable Duration lockDelay) {
		return new LeaseOptions(this.leaseTime, this.minHoldTime, lockDelay);
	}

}
