package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.LockName;

import org.springframework.util.Assert;

/**
 * How a {@link RedisLockRegistry} takes and keeps locks.
 *
 * @param keyPrefix prefix of every lock key, without {@code !} (reserved for helper keys)
 * @param leaseTime TTL of a lock in watchdog mode, renewed every third of it
 * @param commandTimeout how long to wait for Redis to answer one command
 * @param replicasToAck replicas that must acknowledge an acquisition (0: none)
 * @param replicaAckTimeout how long to wait for those acknowledgements
 * @param lockDelay how long a lock whose lease ran out without a release is granted to
 * nobody, unless a hold's options say otherwise (0: none)
 * @param fencingRetention how long a lock's last fencing token is remembered after its
 * last hold ended
 * @since 0.1.0
 */
public record RedisLockSettings(String keyPrefix, Duration leaseTime, Duration commandTimeout, int replicasToAck,
		Duration replicaAckTimeout, Duration lockDelay, Duration fencingRetention) {

	/** Default of {@link #fencingRetention()}: ten minutes. */
	public static final Duration DEFAULT_FENCING_RETENTION = Duration.ofMinutes(10);

	/**
	 * Validate the settings.
	 */
	public RedisLockSettings {
		Assert.notNull(keyPrefix, "'keyPrefix' must not be null");
		LockName.checkKeyPrefix(keyPrefix);
		Assert.isTrue(isPositive(leaseTime) && leaseTime.toMillis() >= 3,
				"'leaseTime' must be at least 3ms, was " + leaseTime);
		Assert.isTrue(isPositive(commandTimeout), "'commandTimeout' must be positive, was " + commandTimeout);
		Assert.isTrue(replicasToAck >= 0, "'replicasToAck' must not be negative, was " + replicasToAck);
		Assert.isTrue(isPositive(replicaAckTimeout), "'replicaAckTimeout' must be positive, was " + replicaAckTimeout);
		Assert.isTrue(lockDelay != null && !lockDelay.isNegative(),
				"'lockDelay' must not be negative, was " + lockDelay);
		Assert.isTrue(isPositive(fencingRetention) && fencingRetention.toMillis() > 0,
				"'fencingRetention' must be at least 1ms, was " + fencingRetention);
	}

	/**
	 * Return settings with the given prefix and lease time, a command timeout of 60
	 * seconds (Lettuce's default), no replica acknowledgement, no lock delay and the
	 * default fencing retention.
	 * @param keyPrefix prefix of every lock key
	 * @param leaseTime TTL of a lock in watchdog mode
	 * @return the settings
	 */
	public static RedisLockSettings of(String keyPrefix, Duration leaseTime) {
		return new RedisLockSettings(keyPrefix, leaseTime, Duration.ofSeconds(60), 0, Duration.ofMillis(100),
				Duration.ZERO, DEFAULT_FENCING_RETENTION);
	}

	/**
	 * Return a copy with the given command timeout.
	 * @param timeout how long to wait for Redis to answer one command
	 * @return the new settings
	 */
	public RedisLockSettings withCommandTimeout(Duration timeout) {
		return new RedisLockSettings(this.keyPrefix, this.leaseTime, timeout, this.replicasToAck,
				this.replicaAckTimeout, this.lockDelay, this.fencingRetention);
	}

	/**
	 * Return a copy that waits for replicas to acknowledge every acquisition.
	 * @param replicas how many replicas must acknowledge
	 * @param timeout how long to wait for them
	 * @return the new settings
	 */
	public RedisLockSettings withReplicasToAck(int replicas, Duration timeout) {
		return new RedisLockSettings(this.keyPrefix, this.leaseTime, this.commandTimeout, replicas, timeout,
				this.lockDelay, this.fencingRetention);
	}

	/**
	 * Return a copy with the given lock delay.
	 * @param delay how long a lock whose lease ran out without a release is granted to
	 * nobody
	 * @return the new settings
	 */
	public RedisLockSettings withLockDelay(Duration delay) {
		return new RedisLockSettings(this.keyPrefix, this.leaseTime, this.commandTimeout, this.replicasToAck,
				this.replicaAckTimeout, delay, this.fencingRetention);
	}

	/**
	 * Return a copy with the given fencing retention.
	 * @param retention how long a lock's last fencing token is remembered after its last
	 * hold ended
	 * @return the new settings
	 */
	public RedisLockSettings withFencingRetention(Duration retention) {
		return new RedisLockSettings(this.keyPrefix, this.leaseTime, this.commandTimeout, this.replicasToAck,
				this.replicaAckTimeout, this.lockDelay, retention);
	}

	private static boolean isPositive(Duration duration) {
		return duration != null && !duration.isNegative() && !duration.isZero();
	}

}
