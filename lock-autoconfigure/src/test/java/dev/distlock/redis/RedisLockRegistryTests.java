package dev.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.distlock.DistributedLockException;
import dev.distlock.FencedLock;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Behaviour of {@link RedisLockRegistry} that is particular to a standalone
 * {@code redis-server}: the commands each operation costs (the uncontended acquire and
 * the release of a lock nobody waits for answer before their scripts define the queue
 * functions), the waiters' subscriptions, and a server that pauses or dies. The behaviour
 * every deployment shares is in {@link RedisLockRegistryContract}.
 */
@Timeout(60)
class RedisLockRegistryTests {

	private static final String QUEUE_FUNCTIONS_DEFINED = "queue functions defined";

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
	void acquireTakesOneRoundTripReleaseOneAndReentryNone() {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		registry.acquire("warm-up", Duration.ZERO).release();
		CommandStats stats = new CommandStats(this.commands);
		FencedLock lock = registry.obtain("order");

		stats.reset();
		assertThat(lock.tryLock()).isTrue();
		// Redis counts the commands a script runs as well as the script call itself: the
		// look at the wait queue, the lock's SET, and TIME and a SET that reads the last
		// token (SET ... GET) for its fencing token.
		assertThat(stats.calls()).isEqualTo(Map.of("evalsha", 1L, "exists", 1L, "set", 2L, "time", 1L));

		stats.reset();
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		assertThat(stats.calls()).isEmpty();

		stats.reset();
		lock.unlock();
		// Nobody waits: no message
		assertThat(stats.calls()).isEqualTo(Map.of("evalsha", 1L, "exists", 1L, "get", 1L, "del", 1L));
	}

	@Test
	void aRegistrySubscribesOnceAndEveryReleaseWakesOnlyTheWaiterItGrantsTheLockTo() throws Exception {
		RedisLockRegistry holder = registry(Duration.ofSeconds(30));
		RedisLockRegistry waiter = registry(Duration.ofSeconds(30));
		CommandStats stats = new CommandStats(this.commands);
		stats.reset();
		for (int i = 0; i < 3; i++) {
			LockLease held = holder.acquire("order", Duration.ZERO);
			CompletableFuture<LockLease> waiting = CompletableFuture
				.supplyAsync(() -> waiter.acquire("order", Duration.ofSeconds(20)));
			await().atMost(Duration.ofSeconds(5))
				.until(() -> TestLockRegistry.waitersOf(this.commands, "lock:order") == 1L);
			held.release();
			waiting.get(10, TimeUnit.SECONDS).release();
		}
		assertThat(stats.calls()).containsEntry("subscribe", 1L)
			.containsEntry("publish", 3L)
			.doesNotContainKey("unsubscribe");
	}

	@Test
	void threadsOfOneJvmWaitingForOneLockDoNotEachPollRedis() throws Exception {
		RedisLockRegistry holder = registry(Duration.ofSeconds(30));
		RedisLockRegistry waiters = registry(Duration.ofSeconds(30));
		LockLease held = holder.acquire("order", Duration.ZERO);
		CommandStats stats = new CommandStats(this.commands);
		stats.reset();
		ExecutorService pool = Executors.newFixedThreadPool(8);
		try {
			List<CompletableFuture<Long>> tokens = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				tokens.add(CompletableFuture.supplyAsync(() -> {
					FencedLock lock = waiters.obtain("order");
					assertThat(lock.tryLock(Duration.ofSeconds(20))).isTrue();
					long token = lock.fencingToken();
					lock.unlock();
					return token;
				}, pool));
			}
			await().atMost(Duration.ofSeconds(5))
				.until(() -> TestLockRegistry.waitersOf(this.commands, "lock:order") == 1L);
			Thread.sleep(200);
			assertThat(stats.calls().getOrDefault("evalsha", 0L)).isLessThanOrEqualTo(2);
			held.release();
			for (CompletableFuture<Long> token : tokens) {
				assertThat(token.get(20, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	/**
	 * Three threads of one JVM queue for a lock another instance holds, and each hands it
	 * to the next with the transfer script: every hold has its own token in the key and a
	 * greater fencing token, issued when it starts.
	 */
	@Test
	void queuedThreadsOfOneJvmTakeTheLockOverEachUnderItsOwnTokens() throws Exception {
		RedisLockRegistry rival = registry(Duration.ofSeconds(30));
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		LockLease held = rival.acquire("order", Duration.ZERO);
		List<String> keyValues = new java.util.concurrent.CopyOnWriteArrayList<>();
		List<Long> tokens = new java.util.concurrent.CopyOnWriteArrayList<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			Thread thread = new Thread(() -> {
				FencedLock lock = registry.obtain("order");
				lock.lock();
				try {
					tokens.add(lock.fencingToken());
					keyValues.add(this.commands.get("lock:order"));
				}
				finally {
					lock.unlock();
				}
			});
			threads.add(thread);
			thread.start();
		}
		await().atMost(Duration.ofSeconds(5))
			.until(() -> TestLockRegistry.waitersOf(this.commands, "lock:order") == 1L && threads.stream()
				.allMatch((thread) -> thread.getState() == Thread.State.TIMED_WAITING
						|| thread.getState() == Thread.State.WAITING));
		held.release();
		for (Thread thread : threads) {
			thread.join(10_000);
		}
		assertThat(tokens).hasSize(3).isSorted().doesNotHaveDuplicates();
		assertThat(tokens.get(0)).isGreaterThan(held.fencingToken());
		assertThat(keyValues).hasSize(3).doesNotHaveDuplicates();
		assertThat(this.commands.get(LockKeys.fenceKey("lock:order"))).isEqualTo(Long.toString(tokens.get(2)));
		assertThat(this.commands.exists("lock:order")).isZero();
	}

	/**
	 * Threads of one JVM that wait for a lock another of its threads holds each take it
	 * over from the one before, however soon that one unlocks: a waiting thread offers to
	 * take the lock over from the moment it starts waiting, so every release but the last
	 * is one transfer, and no waiter tries in Redis meanwhile.
	 */
	@Test
	void threadsOfOneJvmTakeTheLockOverFromEachOtherWithoutTryingInRedis() throws Exception {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		FencedLock lock = registry.obtain("order");
		lock.lock();
		long first = lock.fencingToken();
		List<Long> tokens = new java.util.concurrent.CopyOnWriteArrayList<>();
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			Thread thread = new Thread(() -> {
				lock.lock();
				tokens.add(lock.fencingToken());
				lock.unlock();
			});
			threads.add(thread);
			thread.start();
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> threads.stream().allMatch((thread) -> waitsInTurn(thread)));
		CommandStats stats = new CommandStats(this.commands);
		stats.reset();
		lock.unlock();
		for (Thread thread : threads) {
			thread.join(10_000);
		}
		assertThat(tokens).hasSize(3).isSorted().doesNotHaveDuplicates();
		assertThat(tokens.get(0)).isGreaterThan(first);
		assertThat(stats.calls()).as("three transfers and a release").containsEntry("evalsha", 4L);
		assertThat(this.commands.exists("lock:order")).isZero();
	}

	private static boolean waitsInTurn(Thread thread) {
		return Arrays.stream(thread.getStackTrace())
			.map((frame) -> frame.getClassName() + "." + frame.getMethodName())
			.anyMatch((method) -> method.equals(TestLockRegistry.WAITING_FOR_RELEASE)
					|| method.equals(TestLockRegistry.WAITING_IN_TURN));
	}

	@Test
	void pausedRedisFailsWithinTheCommandTimeoutAndLockingWorksAgainAfterResume() {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30), Duration.ofMillis(500));
		registry.acquire("warm-up", Duration.ZERO).release();
		redis.server().pause();
		long start = System.nanoTime();
		assertThatExceptionOfType(DistributedLockException.class)
			.isThrownBy(() -> registry.tryAcquire("order", Duration.ZERO))
			.withMessageContaining("Redis did not answer within PT0.5S to acquire lock 'order'");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
		redis.server().resume();
		assertThat(registry.tryAcquire("order", Duration.ZERO)).isPresent();
	}

	@Test
	void killedRedisFailsPromptlyAndLockingWorksAgainAfterRestart() {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30), Duration.ofMillis(500));
		registry.acquire("warm-up", Duration.ZERO).release();
		redis.server().kill();
		assertThatExceptionOfType(DistributedLockException.class)
			.isThrownBy(() -> registry.tryAcquire("order", Duration.ZERO));
		redis.server().restart();
		await().atMost(Duration.ofSeconds(10))
			.ignoreExceptions()
			.until(() -> registry.tryAcquire("order", Duration.ZERO), Optional::isPresent);
	}

	@Test
	void uncontendedAcquireAndReleaseAnswerBeforeTheQueueFunctionsAreDefined() {
		LockId id = new LockId(LockName.of("fast"), "lock:fast");
		assertThat(runWithoutQueueFunctions(LuaScript.ACQUIRE, id, "holder", "30000", "600000", "0", "1000", "250", ""))
			.isPositive();
		assertThat(runWithoutQueueFunctions(LuaScript.RELEASE, id, "holder", "0", "0", "0", "0")).isOne();
		assertThat(this.commands.exists(id.key)).isZero();
	}

	@Test
	void releaseOfALockSomebodyWaitsForDefinesTheQueueFunctions() {
		LockId id = new LockId(LockName.of("queued"), "lock:queued");
		assertThat(runWithoutQueueFunctions(LuaScript.ACQUIRE, id, "holder", "30000", "600000", "0", "1000", "250", ""))
			.isPositive();
		this.commands.zadd(id.grantKeys[2], 1, "waiter");
		assertThatExceptionOfType(RedisException.class)
			.isThrownBy(() -> runWithoutQueueFunctions(LuaScript.RELEASE, id, "holder", "0", "0", "0", "0"))
			.withMessageContaining(QUEUE_FUNCTIONS_DEFINED);
	}

	/**
	 * Run a lock script with the text of {@code wait-queue.lua} replaced by an error,
	 * which the script raises if it defines the queue functions.
	 */
	private long runWithoutQueueFunctions(LuaScript script, LockId id, String... args) {
		String source = script.source().replace(resource("wait-queue.lua"), "error('" + QUEUE_FUNCTIONS_DEFINED + "')");
		assertThat(source).as("the script includes wait-queue.lua").contains(QUEUE_FUNCTIONS_DEFINED);
		return this.commands.eval(source, ScriptOutputType.INTEGER, id.grantKeys, args);
	}

	private static String resource(String name) {
		try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
			assertThat(in).as(name).isNotNull();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private RedisLockRegistry registry(Duration leaseTime) {
		return testRegistry(leaseTime).registry();
	}

	private RedisLockRegistry registry(Duration leaseTime, Duration commandTimeout) {
		TestLockRegistry registry = TestLockRegistry.create(redis.server().uri(),
				RedisLockSettings.of("lock:", leaseTime).withCommandTimeout(commandTimeout));
		this.closer.add(registry);
		return registry.registry();
	}

	private TestLockRegistry testRegistry(Duration leaseTime) {
		TestLockRegistry registry = TestLockRegistry.create(redis.server().uri(), leaseTime);
		this.closer.add(registry);
		return registry;
	}

}
