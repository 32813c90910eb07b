package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

import dev.distlock.LockFailureAction;
import dev.distlock.LockLostAction;
import dev.distlock.redis.RedlockSettings;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;
import org.springframework.util.Assert;

/**
 * Configuration properties for distlock.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("distlock")
public class DistLockProperties {

	/**
	 * Default order of the locking interceptor: just before the transaction advisor.
	 */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	/**
	 * Whether distributed locking is enabled.
	 */
	private boolean enabled = true;

	/**
	 * Where locks are kept: 'redis', or 'in-memory' for tests, which needs
	 * dev.distlock:distlock-test on the classpath and keeps locks in the JVM.
	 */
	private Store store = Store.REDIS;

	/**
	 * Prefix of every lock's Redis key. Must not contain '!', which distlock keeps for
	 * the keys of a lock's helpers.
	 */
	private String keyPrefix = "lock:";

	/**
	 * How long to wait for a lock when an annotation or call does not say.
	 */
	private Duration waitTime = Duration.ZERO;

	/**
	 * Time to live of a lock in watchdog mode, renewed every third of it while held.
	 */
	private Duration leaseTime = Duration.ofSeconds(30);

	/**
	 * What an annotated method does when its lock is not acquired in time.
	 */
	private LockFailureAction onFailure = LockFailureAction.THROW;

	/**
	 * What an annotated method does when its lock was lost while it ran.
	 */
	private LockLostAction onLost = LockLostAction.THROW;

	/**
	 * Order of the locking interceptor; must be lower than the transaction advisor's so
	 * that the lock wraps the transaction.
	 */
	private int order = DEFAULT_ORDER;

	/**
	 * Most lock keys one annotated call may take: a key that evaluates to a collection or
	 * array with more elements fails the call before any lock is acquired.
	 */
	private int maxKeysPerCall = 100;

	/**
	 * How long a lock whose lease ran out without a release (its holder crashed, stalled
	 * or was cut off) is granted to nobody after its expiry, so that a stalled holder
	 * that wakes up late has that long to notice before anyone else writes. A release
	 * within the lease frees the lock at once.
	 */
	private Duration lockDelay = Duration.ZERO;

	private final Fencing fencing = new Fencing();

	private final Leader leader = new Leader();

	private final Redis redis = new Redis();

	private final Redlock redlock = new Redlock();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Store getStore() {
		return this.store;
	}

	public void setStore(Store store) {
		this.store = store;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getWaitTime() {
		return this.waitTime;
	}

	public void setWaitTime(Duration waitTime) {
		Assert.isTrue(!waitTime.isNegative(), () -> "must not be negative, was " + waitTime);
		this.waitTime = waitTime;
	}

	public Duration getLeaseTime() {
		return this.leaseTime;
	}

	public void setLeaseTime(Duration leaseTime) {
		Assert.isTrue(leaseTime.toMillis() >= 3, () -> "must be at least 3ms, was " + leaseTime);
		this.leaseTime = leaseTime;
	}

	public LockFailureAction getOnFailure() {
		return this.onFailure;
	}

	public void setOnFailure(LockFailureAction onFailure) {
		Assert.isTrue(onFailure != LockFailureAction.DEFAULT, "must be throw or skip, was default");
		this.onFailure = onFailure;
	}

	public LockLostAction getOnLost() {
		return this.onLost;
	}

	public void setOnLost(LockLostAction onLost) {
		this.onLost = onLost;
	}

	public int getOrder() {
		return this.order;
	}

	public void setOrder(int order) {
		this.order = order;
	}

	public int getMaxKeysPerCall() {
		return this.maxKeysPerCall;
	}

	public void setMaxKeysPerCall(int maxKeysPerCall) {
		Assert.isTrue(maxKeysPerCall > 0, () -> "must be positive, was " + maxKeysPerCall);
		this.maxKeysPerCall = maxKeysPerCall;
	}

	public Duration getLockDelay() {
		return this.lockDelay;
	}

	public void setLockDelay(Duration lockDelay) {
		Assert.isTrue(!lockDelay.isNegative(), () -> "must not be negative, was " + lockDelay);
		this.lockDelay = lockDelay;
	}

	public Fencing getFencing() {
		return this.fencing;
	}

	public Leader getLeader() {
		return this.leader;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Redlock getRedlock() {
		return this.redlock;
	}

	/**
	 * Fencing token settings.
	 */
	public static class Fencing {

		/**
		 * How long Redis remembers a lock's last fencing token after the lock was last
		 * held, then forgets it and its key. Tokens keep increasing across a Redis server
		 * clock step back shorter than this.
		 */
		private Duration retention = Duration.ofMinutes(10);

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			Assert.isTrue(retention.toMillis() >= 1, () -> "must be at least 1ms, was " + retention);
			this.retention = retention;
		}

	}

	/**
	 * Leader election settings.
	 */
	public static class Leader {

		/**
		 * Names of the leaderships this instance campaigns for, from startup until
		 * shutdown, which hands its leaderships to the standbys at once. Methods
		 * annotated with @LeaderOnly name one of these.
		 */
		private List<String> names = new ArrayList<>();

		public List<String> getNames() {
			return this.names;
		}

		public void setNames(List<String> names) {
			this.names = names;
		}

	}

	/**
	 * Redis-specific settings.
	 */
	public static class Redis {

		/**
		 * Replicas that must acknowledge an acquisition (Redis WAIT) before it counts; 0
		 * does not wait. Protects against losing a lock when the primary fails over.
		 */
		private int replicasToAck;

		/**
		 * How long to wait for replicas to acknowledge an acquisition.
		 */
		private Duration replicaAckTimeout = Duration.ofMillis(100);

		public int getReplicasToAck() {
			return this.replicasToAck;
		}

		public void setReplicasToAck(int replicasToAck) {
			Assert.isTrue(replicasToAck >= 0, () -> "must not be negative, was " + replicasToAck);
			this.replicasToAck = replicasToAck;
		}

		public Duration getReplicaAckTimeout() {
			return this.replicaAckTimeout;
		}

		public void setReplicaAckTimeout(Duration replicaAckTimeout) {
			Assert.isTrue(!replicaAckTimeout.isNegative() && !replicaAckTimeout.isZero(),
					() -> "must be positive, was " + replicaAckTimeout);
			this.replicaAckTimeout = replicaAckTimeout;
		}

	}

	/**
	 * Redlock settings: locks on a quorum of independent Redis primaries.
	 */
	public static class Redlock {

		/**
		 * URIs of independent Redis primaries
		 * (redis://[user:password@]host[:port][/database], rediss:// for TLS), at least
		 * three, to lock on instead of spring.data.redis.*: a lock is held once a
		 * majority of them granted it. Only locks and leases are offered; read/write
		 * locks, semaphores and concurrency limits are not.
		 */
		private List<String> nodes = new ArrayList<>();

		/**
		 * Fraction of a lease by which the clocks of the nodes and of the holder may
		 * drift apart; a lock's key lives that share of its lease, plus 2ms, longer than
		 * the holder counts on it.
		 */
		private double driftFactor = RedlockSettings.DEFAULT_DRIFT_FACTOR;

		public List<String> getNodes() {
			return this.nodes;
		}

		public void setNodes(List<String> nodes) {
			Assert.isTrue(nodes.isEmpty() || nodes.size() >= 3,
					() -> "must name at least 3 independent Redis primaries for a majority to survive the loss of one,"
							+ " was " + nodes.size());
			Assert.isTrue(new HashSet<>(nodes).size() == nodes.size(),
					() -> "must name every node once, since each counts towards a majority, was " + nodes);
			nodes.forEach(RedlockNodeUri::check);
			this.nodes = nodes;
		}

		public double getDriftFactor() {
			return this.driftFactor;
		}

		public void setDriftFactor(double driftFactor) {
			Assert.isTrue(driftFactor >= 0 && driftFactor < 1,
					() -> "must be at least 0 and less than 1, was " + driftFactor);
			this.driftFactor = driftFactor;
		}

	}

	/**
	 * Where locks are kept.
	 */
	public enum Store {

		/**
		 * Redis, through the application's {@code RedisConnectionFactory}.
		 */
		REDIS,

		/**
		 * The JVM, for tests: {@code InMemoryLockRegistry} from distlock-test.
		 */
		IN_MEMORY

	}

}
