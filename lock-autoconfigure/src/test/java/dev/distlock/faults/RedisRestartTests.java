package dev.distlock.faults;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.distlock.DistributedLockException;
import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.TestDriver;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TestThread;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Redis killed ({@code SIGKILL}) and started again empty while locks are held, on every
 * {@link TestDriver}: holders learn at their next renewal that their locks are gone, a
 * waiter gets the lock, new acquisitions work, fencing tokens go on increasing although
 * Redis forgot the last ones (they are issued from the server's clock), and release
 * signals wake waiters again once the subscriptions are restored.
 */
@Timeout(60)
class RedisRestartTests {

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration RECOVERY = Duration.ofSeconds(15);

	/**
	 * How long a waiter waits for a lock whose holder has a {@link #FIXED_LEASE}: only a
	 * release signal can wake it in time.
	 */
	private static final Duration WAIT = Duration.ofSeconds(10);

	private static final Duration FIXED_LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(TestDriver.class)
	void holdersLearnAtTheirNextRenewalThatTheRestartLostTheirLocks(TestDriver driver) {
		TestLockRegistry holder = registry(driver);
		LockLease lease = holder.registry().acquire("report", Duration.ZERO);
		FencedLock lock = holder.registry().obtain("inventory");
		assertThat(lock.tryLock()).isTrue();
		long leaseToken = lease.fencingToken();
		long lockToken = lock.fencingToken();
		redis.server().kill();
		redis.server().restart();
		await().atMost(RECOVERY).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
			holder.registry().renewLeases();
			assertThat(holder.lostEvents()).extracting(LockLostEvent::name)
				.containsExactlyInAnyOrder("report", "inventory");
		});
		assertThat(holder.lostEvents()).extracting(LockLostEvent::reason)
			.allSatisfy(
					(reason) -> assertThat(reason).startsWith("its renewal found it expired or held by another owner"));
		assertThat(lease.isValid()).isFalse();
		assertThat(lock.currentHold().isValid()).isFalse();
		assertThat(holder.registry().heldLocks()).isEmpty();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release)
			.withMessage("Lock 'report' was lost before its release (fencing token " + leaseToken + ")");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock)
			.withMessage("Lock 'inventory' was lost before its release (fencing token " + lockToken + ")");
		assertThat(holder.lostEvents()).as("each loss is reported once").hasSize(2);
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(TestDriver.class)
	void waiterForAHeldLockGetsItAfterRedisRestarts(TestDriver driver) throws Exception {
		TestLockRegistry holder = registry(driver);
		TestLockRegistry waiter = registry(driver);
		long before = holder.registry().acquire("job", Duration.ZERO).fencingToken();
		ExecutorService executor = Executors.newSingleThreadExecutor();
		this.closer.add(executor::shutdownNow);
		long startNanos = System.nanoTime();
		CompletableFuture<Optional<LockLease>> waiting = CompletableFuture
			.supplyAsync(() -> waiter.registry().tryAcquire("job", WAIT), executor);
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), COMMAND_TIMEOUT)) {
			await().atMost(Duration.ofSeconds(5))
				.until(() -> TestLockRegistry.waitersOf(client.sync(), "lock:job") == 1L);
		}
		redis.server().kill();
		redis.server().restart();
		Optional<LockLease> acquired = waiting.get(15, TimeUnit.SECONDS);
		Duration waited = Duration.ofNanos(System.nanoTime() - startNanos);
		assertThat(acquired).as("acquired after the restart").isPresent();
		assertThat(acquired.get().isValid()).isTrue();
		assertThat(acquired.get().fencingToken()).as("issued after the restart").isGreaterThan(before);
		acquired.get().release();
		System.out.println("[restart] " + driver + ": waiter acquired with fencing token "
				+ acquired.get().fencingToken() + " after " + waited.toMillis() + " ms");
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(TestDriver.class)
	void newAcquisitionsWorkAfterTheRestartAndFencingTokensGoOnIncreasing(TestDriver driver) {
		TestLockRegistry registry = registry(driver);
		long before = 0;
		for (int i = 0; i < 5; i++) {
			try (LockLease lease = registry.registry().acquire("ledger", Duration.ZERO)) {
				assertThat(lease.fencingToken()).isGreaterThan(before);
				before = lease.fencingToken();
			}
		}
		redis.server().kill();
		redis.server().restart();
		long startNanos = System.nanoTime();
		awaitAnswer(registry);
		LockLease after = registry.registry().acquire("ledger", Duration.ZERO);
		System.out.println("[restart] " + driver + ": first acquisition after restart took "
				+ Duration.ofNanos(System.nanoTime() - startNanos).toMillis() + " ms, fencing token "
				+ after.fencingToken() + " (was " + before + ")");
		assertThat(after.fencingToken()).as("greater although Redis lost the last token").isGreaterThan(before);
		after.release();
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(TestDriver.class)
	void releaseSignalsWakeWaitersAgainOnceTheSubscriptionsAreRestored(TestDriver driver) throws Exception {
		TestLockRegistry holder = registry(driver);
		TestLockRegistry waiter = registry(driver);
		TestThread waiting = this.closer.add(TestThread.start("waiter"));
		Duration wokenBefore = passOn(holder, waiter, waiting);
		redis.server().kill();
		redis.server().restart();
		long restartedNanos = System.nanoTime();
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), COMMAND_TIMEOUT)) {
			await().atMost(RECOVERY)
				.pollInterval(Duration.ofMillis(10))
				.until(() -> client.sync().pubsubChannels("lock:!grants:*").size() == 1);
		}
		Duration resubscribed = Duration.ofNanos(System.nanoTime() - restartedNanos);
		awaitAnswer(holder);
		awaitAnswer(waiter);
		Duration answering = Duration.ofNanos(System.nanoTime() - restartedNanos);
		Duration wokenAfter = passOn(holder, waiter, waiting);
		System.out.println("[restart] " + driver + ": release signals subscribed again " + resubscribed.toMillis()
				+ " ms after the restart, both registries answering after " + answering.toMillis()
				+ " ms; waiter woken " + wokenBefore.toMillis() + " ms after a release before, " + wokenAfter.toMillis()
				+ " ms after");
	}

	/**
	 * Let the waiter wait for a lock the holder holds with a fixed lease longer than the
	 * waiter's wait, then release it: only the release signal can give the waiter the
	 * lock in time.
	 * @return how long after the release the waiter had the lock
	 */
	private Duration passOn(TestLockRegistry holder, TestLockRegistry waiter, TestThread waiting) throws Exception {
		LockLease held = holder.registry()
			.tryAcquire("job", Duration.ZERO, LeaseOptions.fixed(FIXED_LEASE))
			.orElseThrow();
		CompletableFuture<LockLease> taking = waiting.call(() -> waiter.registry().acquire("job", WAIT));
		waiting.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		long releasedNanos = System.nanoTime();
		held.release();
		LockLease taken = taking.get(WAIT.toSeconds() + 5, TimeUnit.SECONDS);
		Duration woken = Duration.ofNanos(System.nanoTime() - releasedNanos);
		assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
		taken.release();
		return woken;
	}

	/**
	 * Wait until the registry's connections answer again: a pooled connection opened
	 * before the restart fails its first command.
	 */
	private static void awaitAnswer(TestLockRegistry registry) {
		await().atMost(RECOVERY)
			.pollInterval(Duration.ofMillis(50))
			.ignoreException(DistributedLockException.class)
			.untilAsserted(() -> registry.registry().ping());
	}

	private TestLockRegistry registry(TestDriver driver) {
		return this.closer.add(TestLockRegistry.create(driver, redis.server().uri(),
				RedisLockSettings.of("lock:", LEASE).withCommandTimeout(COMMAND_TIMEOUT)));
	}

}
