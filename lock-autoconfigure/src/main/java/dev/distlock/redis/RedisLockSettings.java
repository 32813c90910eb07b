package dev.distlock.redis;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How a {@link RedisLockRegistry} takes and keeps locks.
 *
 * @param keyPrefix prefix of every lock key, without {@code !} (reserved for helper keys)
 * @param leaseTime TTL of a lock in watchdog mode, renewed every third of it
 * @param commandTimeout how long to wait for Redis to answer one command
 * @param replicasToAck replicas that must acknowledge an acquisition (0: none)
 * @param replicaAckTimeout how long to wait for those acknowledgements
 * @since 0.1.0
 */
public record RedisLockSettings(String keyPrefix, Duration leaseTime, Duration commandTimeout, int replicasToAck,
		Duration replicaAckTimeout) {

	/**
	 * Validate the settings.
	 */
	public RedisLockSettings {
		Assert.notNull(keyPrefix, "'keyPrefix' must not be null");
		LockKeys.checkPrefix(keyPrefix);
		Assert.isTrue(isPositive(leaseTime) && leaseTime.toMillis() >= 3,
				"'leaseTime' must be at least 3ms, was " + leaseTime);
		Assert.isTrue(isPositive(commandTimeout), "'commandTimeout' must be positive, was " + commandTimeout);
		Assert.isTrue(replicasToAck >= 0, "'replicasToAck' must not be negative, was " + replicasToAck);
		Assert.isTrue(isPositive(replicaAckTimeout), "'replicaAckTimeout' must be positive, was " + replicaAckTimeout);
	}

	/**
	 * Return settings with the given prefix and lease time, a command timeout of 60
	 * seconds (Lettuce's default) and no replica acknowledgement.
	 * @param keyPrefix prefix of every lock key
	 * @param leaseTime TTL of a lock in watchdog mode
	 * @return the settings
	 */
	public static RedisLockSettings of(String keyPrefix, Duration leaseTime) {
		return new RedisLockSettings(keyPrefix, leaseTime, Duration.ofSeconds(60), 0, Duration.ofMillis(100));
	}

	/**
	 * Return a copy with the given command timeout.
	 * @param timeout how long to wait for Redis to answer one command
	 * @return the new settings
	 */
	public RedisLockSettings withCommandTimeout(Duration timeout) {
		return new RedisLockSettings(this.keyPrefix, this.leaseTime, timeout, this.replicasToAck,
				this.replicaAckTimeout);
	}

	/**
	 * Return a copy that waits for replicas to acknowledge every acquisition.
	 * @param replicas how many replicas must acknowledge
	 * @param timeout how long to wait for them
	 * @return the new settings
	 */
	public RedisLockSettings withReplicasToAck(int replicas, Duration timeout) {
		return new RedisLockSettings(this.keyPrefix, this.leaseTime, this.commandTimeout, replicas, timeout);
	}

	private static boolean isPositive(Duration duration) {
		return duration != null && !duration.isNegative() && !duration.isZero();
	}

}
