package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.distlock.DistributedSemaphore;
import dev.distlock.HoldKind;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import dev.distlock.redis.connection.LockConnections;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.RivalJvm;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import dev.distlock.testsupport.LettuceClients;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.distlock.redis.CrossProcessLockTests.RIVAL_REPLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A semaphore on a real {@code redis-server}. Its permits are shared holds, taken through
 * a {@link SharedAttempt}: admitted while there is room and nobody waits before, queued
 * otherwise, woken by a release with one message to the waiter's process, and nothing
 * left behind by a waiter that is interrupted. Across processes, rival JVMs
 * ({@link LockWorkerMain}) on every {@link TestDriver} take and release permits as fast
 * as they can, never more holders at once than the permits, and a holder killed with
 * {@code SIGKILL} has its permit come back once its lease ran out, and not before.
 */
@Timeout(120)
class SemaphoreTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(10);

	private static final int PERMITS = 2;

	private static final int THREADS = 2;

	private static final int ITERATIONS = 25;

	/** The killed holder's lease: renewed every second, so two are left at the least. */
	private static final Duration KILLED_HOLDERS_LEASE = Duration.ofSeconds(3);

	/**
	 * Slack for scheduling on a busy machine, added to every bound that follows a lease.
	 */
	private static final Duration MARGIN = Duration.ofSeconds(3);

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
	void admitsAsManyHoldersAsThePermitsAndRefusesTheNextWithoutQueueingIt() throws Exception {
		RedisLockRegistry registry = registry();
		RedisHold first = acquire(registry, Duration.ZERO);
		RedisHold second = acquire(registry, Duration.ZERO);
		assertThat(first).isNotNull();
		assertThat(second).isNotNull();
		assertThat(second.fencingToken).isGreaterThan(first.fencingToken);
		assertThat(first.kind).isEqualTo(HoldKind.PERMIT);
		assertThat(acquire(registry(), Duration.ZERO)).isNull();
		assertThat(this.commands.zcard(helperKey(LockKeys.PERMITS))).isEqualTo(PERMITS);
		assertThat(this.commands.exists(helperKey(LockKeys.QUEUE))).isZero();
		registry.engine().release.release(first);
		registry.engine().release.release(second);
		assertThat(this.commands.exists(helperKey(LockKeys.PERMITS), helperKey(LockKeys.QUEUE))).isZero();
	}

	@Test
	void releaseWakesTheFirstWaiterWithOneMessageToItsProcess() throws Exception {
		RedisLockRegistry holding = registry();
		RedisHold first = acquire(holding, Duration.ZERO);
		acquire(holding, Duration.ZERO);
		RedisLockRegistry waiting = registry();
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		CompletableFuture<@Nullable RedisHold> admitted = waiter.call(() -> acquire(waiting, WAIT));
		waiter.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		CommandStats stats = new CommandStats(this.commands);
		stats.reset();
		holding.engine().release.release(first);
		RedisHold hold = admitted.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		assertThat(hold).isNotNull();
		assertThat(hold.fencingToken).isGreaterThan(first.fencingToken);
		assertThat(stats.calls()).containsEntry("publish", 1L);
		assertThat(this.commands.exists(helperKey(LockKeys.QUEUE))).isZero();
	}

	@Test
	void interruptedWaiterGivesItsTokenBackAndLeavesTheQueue() throws Exception {
		RedisLockRegistry holding = registry();
		RedisHold first = acquire(holding, Duration.ZERO);
		acquire(holding, Duration.ZERO);
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		RedisLockRegistry waiting = registry();
		CompletableFuture<@Nullable RedisHold> admitted = waiter.call(() -> acquire(waiting, WAIT));
		waiter.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		assertThat(this.commands.zcard(helperKey(LockKeys.QUEUE))).isOne();
		waiter.interrupt();
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> admitted.get(WAIT.toSeconds(), TimeUnit.SECONDS))
			.withCauseInstanceOf(InterruptedException.class);
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.commands.exists(helperKey(LockKeys.QUEUE))).isZero());
		holding.engine().release.release(first);
		assertThat(this.commands.zcard(helperKey(LockKeys.PERMITS))).isOne();
	}

	@Test
	void releaseOfTheOnlyPermitWhoseLeaseIsOverKeepsItsPlaceUnrenewableAndTheSetItsLife() throws Exception {
		RedisHold permit = acquire(registry(), Duration.ZERO);
		assertThat(permit).isNotNull();
		RedisClient client = RedisClient.create(redis.server().uri());
		this.closer.add(() -> LettuceClients.shutdown(client));
		RedisLockCommands commands = this.closer.add(new RedisLockCommands(LockConnections.lettuce(client),
				RedisLockSettings.of("lock:", LEASE), Duration.ZERO));
		assertThat(commands.await(commands.releaseShare(permit.id, HoldKind.PERMIT, permit.token, 1_000, true),
				"release permit"))
			.as("held, but with its lease over")
			.isFalse();
		assertThat(this.commands.zrange(helperKey(LockKeys.PERMITS), 0, -1))
			.containsExactly("released:" + permit.token);
		assertThat(this.commands.pttl(helperKey(LockKeys.PERMITS))).isBetween(1L, LEASE.toMillis());
	}

	@Test
	void atNoInstantDoMoreHoldersThanThePermitsHoldOneAcrossThreeJvms() throws Exception {
		List<RivalJvm> rivals = new ArrayList<>();
		for (TestDriver driver : TestDriver.values()) {
			rivals.add(startRival("permits", driver, "pool", PERMITS, THREADS, ITERATIONS));
		}
		rivals.forEach((rival) -> rival.awaitLine("READY", RIVAL_REPLY));
		rivals.forEach((rival) -> rival.send("go"));
		List<HoldIntervals.Interval> intervals = new ArrayList<>();
		for (RivalJvm rival : rivals) {
			assertThat(rival.awaitExit(RIVAL_REPLY)).isZero();
			rival.lines()
				.stream()
				.filter((line) -> line.startsWith(HoldIntervals.PREFIX))
				.map(HoldIntervals::parse)
				.forEach(intervals::add);
		}
		assertThat(intervals).hasSize(TestDriver.values().length * THREADS * ITERATIONS);
		assertThat(intervals.stream().map(HoldIntervals.Interval::fencingToken)).doesNotHaveDuplicates();
		assertThat(HoldIntervals.mostAtOnce(intervals)).as("holders at once").isEqualTo(PERMITS);
		assertThat(this.commands.exists(helperKey(LockKeys.PERMITS), helperKey(LockKeys.QUEUE),
				helperKey(LockKeys.WAITERS)))
			.isZero();
	}

	@Test
	void permitOfAKilledHolderComesBackAfterItsLeaseAndNotBefore() {
		DistributedSemaphore pool = registry().semaphore("pool", 1);
		RivalJvm holder = startRival("permit", TestDriver.LETTUCE, "pool", 1, KILLED_HOLDERS_LEASE.toMillis());
		long killedHoldersToken = CrossProcessLockTests.acquiredToken(holder);
		holder.kill();
		long beforeExpiryRead = System.nanoTime();
		long remainingMillis = entryMillisLeft();
		assertThat(remainingMillis).isBetween(1L, KILLED_HOLDERS_LEASE.toMillis());
		assertThat(pool.tryAcquire(Duration.ZERO)).isEmpty();
		Optional<LockLease> acquired = pool.tryAcquire(KILLED_HOLDERS_LEASE.plus(MARGIN));
		Duration waited = Duration.ofNanos(System.nanoTime() - beforeExpiryRead);
		assertThat(acquired)
			.hasValueSatisfying((permit) -> assertThat(permit.fencingToken()).isGreaterThan(killedHoldersToken));
		// Entries expire in whole milliseconds of the server's clock
		assertThat(waited).as("wait for the killed holder's entry with %d ms left", remainingMillis)
			.isGreaterThanOrEqualTo(Duration.ofMillis(remainingMillis - 1));
		acquired.get().release();
	}

	/**
	 * Return how long the only entry of the semaphore's permit holders has left, by the
	 * server's clock.
	 */
	private long entryMillisLeft() {
		double expiry = this.commands.zrangeWithScores(helperKey(LockKeys.PERMITS), 0, 0).get(0).getScore();
		List<String> time = this.commands.time();
		long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
		return (long) expiry - now;
	}

	private RivalJvm startRival(String mode, TestDriver driver, Object... args) {
		return CrossProcessLockTests.startRival(this.closer, redis.server().uri(), mode, driver, args);
	}

	private RedisLockRegistry registry() {
		return this.closer.add(TestLockRegistry.create(redis.server().uri(), LEASE)).registry();
	}

	private static @Nullable RedisHold acquire(RedisLockRegistry registry, Duration waitTime)
			throws InterruptedException {
		LockId id = new LockId(LockName.of("pool"), "lock:pool");
		return registry.engine().holds.acquireShared(
				new SharedAttempt(id, HoldKind.PERMIT, LuaScript.ACQUIRE_PERMIT, Integer.toString(PERMITS)), waitTime);
	}

	private static String helperKey(String role) {
		return LockKeys.helperKey("lock:pool", role);
	}

}
