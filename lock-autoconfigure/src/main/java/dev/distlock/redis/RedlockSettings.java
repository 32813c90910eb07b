package dev.distlock.redis;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How a {@link RedisLockRegistry} on a quorum of independent Redis nodes (Redlock) allows
 * for the clocks of its nodes and of the holder drifting apart: a lock's key lives on
 * each node its lease plus the drift allowance, while the holder counts the hold valid
 * for the lease after it sent the acquisition, so that a node whose clock runs faster
 * than the holder's by less than the drift factor does not let the key go before the
 * holder stops counting on it.
 *
 * @param driftFactor the fraction of a lease that the clocks may drift apart during it
 * @since 0.1.0
 */
public record RedlockSettings(double driftFactor) {

	/** Default of {@link #driftFactor()}: 0.01, as the Redlock algorithm suggests. */
	public static final double DEFAULT_DRIFT_FACTOR = 0.01;

	/** What the drift allowance adds to the drift factor's share of a lease. */
	public static final Duration FIXED_DRIFT = Duration.ofMillis(2);

	/**
	 * Validate the settings.
	 */
	public RedlockSettings {
		Assert.isTrue(driftFactor >= 0 && driftFactor < 1,
				"'driftFactor' must be at least 0 and less than 1, was " + driftFactor);
	}

	/**
	 * Return the drift allowance of a lease: its share of the drift factor, rounded up,
	 * plus {@link #FIXED_DRIFT}.
	 * @param leaseMillis the lease in milliseconds
	 * @return the allowance in milliseconds
	 */
	public long driftMillis(long leaseMillis) {
		return (long) Math.ceil(leaseMillis * this.driftFactor) + FIXED_DRIFT.toMillis();
	}

}
