package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fencing tokens issued from the Redis server's clock: they keep increasing across what
 * loses Redis' data and across a server clock step back shorter than the retention, and
 * every key they need expires; a node of a Redlock quorum issues the token the client
 * proposes unless its clock or last token is ahead. Restarts and failovers are in
 * {@code faults}.
 */
@Timeout(60)
class FencingTokenTests {

	private static final String TIME_CALL = "redis.call('time')";

	private static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

	private static final Duration WAIT = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private RedisCommands<String, String> commands;

	@BeforeEach
	void connect() {
		this.commands = this.closer.add(RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))).sync();
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void tokensAreAboveTheServerClockInMicrosecondsAndBelowTwoToThe53() {
		long serverMicros = serverMicros();
		try (LockLease lease = registry(RedisLockSettings.of("lock:", Duration.ofSeconds(30))).acquire("order",
				Duration.ZERO)) {
			assertThat(lease.fencingToken()).isGreaterThan(serverMicros).isLessThan(MAX_SAFE_INTEGER);
		}
	}

	@Test
	void tokensKeepIncreasingAfterFlushAll() {
		RedisLockRegistry registry = registry(RedisLockSettings.of("lock:", Duration.ofSeconds(30)));
		long before = registry.acquire("order", Duration.ZERO).fencingToken();
		this.commands.flushall();
		try (LockLease after = registry.acquire("order", Duration.ZERO)) {
			assertThat(after.fencingToken()).isGreaterThan(before);
		}
	}

	/**
	 * The acquire script runs with a stand-in for the server's {@code TIME} that steps
	 * back five minutes: while the fencing key remembers the last token, the next token
	 * is still greater. Once the key is gone (after the retention), a step back issues a
	 * smaller token: the documented limit.
	 */
	@Test
	void tokensKeepIncreasingAcrossAServerClockStepBackWhileTheLastTokenIsRemembered() {
		assertThat(LuaScript.ACQUIRE.source()).as("the acquire script reads the clock").contains(TIME_CALL);
		long now = Long.parseLong(this.commands.time().get(0));
		long first = acquireAt(now);
		long steppedBack = acquireAt(now - 300);
		assertThat(steppedBack).isEqualTo(first + 1);
		assertThat(this.commands.get(LockKeys.fenceKey("lock:clock"))).isEqualTo(Long.toString(steppedBack));
		assertThat(this.commands.pttl(LockKeys.fenceKey("lock:clock"))).isPositive();
		this.commands.del(LockKeys.fenceKey("lock:clock"));
		assertThat(acquireAt(now - 600)).as("forgotten after the retention").isLessThan(first);
	}

	/**
	 * On a node of a Redlock quorum, the acquire script issues the token the client
	 * proposes while the node's clock and the lock's last token are below it, and
	 * otherwise a token above them, as on one Redis.
	 */
	@Test
	void aQuorumNodeIssuesTheProposedTokenUnlessItsClockOrLastTokenIsAhead() {
		long proposed = serverMicros() + 15_000;
		long issued = acquireOnQuorumAbove(proposed);
		// Unless the node's clock passed the proposal meanwhile (a stalled machine)
		boolean clockBehind = serverMicros() < proposed;
		assertThat(issued).isGreaterThanOrEqualTo(proposed);
		assertThat(issued == proposed || !clockBehind).as("the proposed token").isTrue();
		long next = acquireOnQuorumAbove(proposed - 10);
		assertThat(next).as("above the last token").isGreaterThan(issued);
		assertThat(next == issued + 1 || serverMicros() >= issued).isTrue();
		this.commands.del(LockKeys.fenceKey("lock:clock"));
		long before = serverMicros();
		assertThat(acquireOnQuorumAbove(before - 1_000_000)).as("above the clock")
			.isGreaterThan(before)
			.isLessThanOrEqualTo(serverMicros());
	}

	/**
	 * A client whose clock runs a minute ahead must not put tokens in the fencing keys
	 * that the node's own clock would not pass once they expired, or after the node lost
	 * its data and waited a lease: the node takes a proposal only up to 20 ms ahead of
	 * its clock.
	 */
	@Test
	void aQuorumNodeTakesAProposedTokenOnlyUpTo20MillisecondsAheadOfItsClock() {
		long now = serverMicros();
		long issued = acquireOnQuorumAbove(now + 60_000_000);
		assertThat(issued).isGreaterThan(now).isLessThanOrEqualTo(serverMicros() + 20_000);
	}

	/**
	 * T1 waits for "order" behind another instance with T2 queued behind it in the same
	 * JVM, so that T1's acquisition knows a local waiter, and then hands the lock over to
	 * T2: each hold's token is issued when the hold starts, so the fencing key remembers
	 * the holder's own token, never a later one issued ahead for a hand-over.
	 */
	@Test
	void aHandOverIssuesTheNextTokenWhenTheWaiterStartsHolding() throws Exception {
		RedisLockRegistry registry = registry(RedisLockSettings.of("lock:", Duration.ofSeconds(30)));
		RedisLockRegistry other = registry(RedisLockSettings.of("lock:", Duration.ofSeconds(30)));
		TestThread first = this.closer.add(TestThread.start("first"));
		TestThread second = this.closer.add(TestThread.start("second"));
		FencedLock lock = registry.obtain("order");
		LockLease rival = other.acquire("order", Duration.ZERO);
		CompletableFuture<Void> firstHolds = first.run(lock::lock);
		first.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		CompletableFuture<Long> seconds = second.call(() -> {
			lock.lock();
			long token = lock.fencingToken();
			lock.unlock();
			return token;
		});
		second.awaitIn(TestLockRegistry.WAITING_IN_TURN, WAIT);
		rival.release();
		firstHolds.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		long firstsToken = first.call(lock::fencingToken).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		assertThat(this.commands.get(LockKeys.fenceKey("lock:order"))).isEqualTo(Long.toString(firstsToken));
		second.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		first.run(lock::unlock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		long secondsToken = seconds.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		assertThat(secondsToken).isGreaterThan(firstsToken);
		assertThat(this.commands.get(LockKeys.fenceKey("lock:order"))).isEqualTo(Long.toString(secondsToken));
	}

	@Test
	void theLockKeyLivesItsLeaseAndLockDelayAndTheFencingKeyTheRetentionMore() {
		RedisLockRegistry registry = registry(RedisLockSettings.of("lock:", Duration.ofSeconds(30))
			.withLockDelay(Duration.ofSeconds(2))
			.withFencingRetention(Duration.ofSeconds(60)));
		LockLease lease = registry.tryAcquire("order", Duration.ZERO, LeaseOptions.fixed(Duration.ofSeconds(5)))
			.orElseThrow();
		assertThat(this.commands.pttl("lock:order")).isBetween(5_000L, 7_000L);
		assertThat(this.commands.pttl(LockKeys.fenceKey("lock:order"))).isBetween(65_000L, 67_000L);
		lease.release();
		assertThat(this.commands.exists("lock:order")).as("a release frees the lock at once").isZero();
		assertThat(this.commands.pttl(LockKeys.fenceKey("lock:order"))).as("the last token is kept")
			.isBetween(60_000L, 67_000L);
	}

	/**
	 * A hold renewed for longer than the retention keeps its fencing key: the last token
	 * is remembered for the retention after the hold ended, not after it began.
	 */
	@Test
	void renewalsKeepTheLastTokenForTheRetentionAfterTheHoldEnds() {
		Duration lease = Duration.ofMillis(300);
		Duration retention = Duration.ofMillis(500);
		RedisLockRegistry registry = registry(RedisLockSettings.of("lock:", lease).withFencingRetention(retention));
		String fenceKey = LockKeys.fenceKey("lock:order");
		LockLease held = registry.acquire("order", Duration.ZERO);
		long acquiredAt = System.nanoTime();
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> System.nanoTime() - acquiredAt > 3 * lease.plus(retention).toNanos());
		assertThat(held.isValid()).isTrue();
		assertThat(this.commands.get(fenceKey)).isEqualTo(Long.toString(held.fencingToken()));
		held.release();
		assertThat(this.commands.pttl(fenceKey)).isGreaterThan(retention.toMillis() / 2);
		await().atMost(lease.plus(retention).plusSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> this.commands.dbsize() == 0L);
	}

	/**
	 * Run the acquire script for lock {@code lock:clock} with the server's clock replaced
	 * by the given time, and delete the lock key again.
	 * @return the fencing token
	 */
	private long acquireAt(long serverSeconds) {
		String script = LuaScript.ACQUIRE.source().replace(TIME_CALL, "{'" + serverSeconds + "', '0'}");
		Long token = this.commands.eval(script, ScriptOutputType.INTEGER,
				new LockId(LockName.of("clock"), "lock:clock").grantKeys, "holder", "30000", "600000", "0", "0", "0",
				"");
		this.commands.del("lock:clock");
		return token;
	}

	/**
	 * Run the acquire script of a quorum's node for lock {@code lock:clock} with the
	 * given token floor, and delete the lock key again.
	 * @return the fencing token
	 */
	/**
	 * A quorum's acquire script with no minimum uptime asks nothing of the node, also of
	 * one started within the second, whose uptime reads as 0 whole seconds.
	 */
	@Test
	void aQuorumNodeAskedForNoMinimumUptimeGrantsAsSoonAsItStarted() throws Exception {
		try (RedisServer fresh = RedisServer.start();
				RedisTestClient client = RedisTestClient.connect(fresh.uri(), Duration.ofSeconds(5))) {
			assertThat(acquireOnQuorumAbove(client.sync(), 0)).isPositive();
		}
	}

	private long acquireOnQuorumAbove(long tokenFloor) {
		return acquireOnQuorumAbove(this.commands, tokenFloor);
	}

	private static long acquireOnQuorumAbove(RedisCommands<String, String> commands, long tokenFloor) {
		Long token = commands.eval(LuaScript.ACQUIRE_ON_QUORUM.source(), ScriptOutputType.INTEGER,
				new LockId(LockName.of("clock"), "lock:clock").grantKeys, "holder", "30000", "600000", "0", "0", "0",
				"", "0", Long.toString(tokenFloor));
		commands.del("lock:clock");
		return token;
	}

	private long serverMicros() {
		List<String> time = this.commands.time();
		return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
	}

	private RedisLockRegistry registry(RedisLockSettings settings) {
		return this.closer
			.add(TestLockRegistry.create(redis.server().uri(), settings.withCommandTimeout(Duration.ofSeconds(2))))
			.registry();
	}

}
