package dev.distlock.faults;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.distlock.DistributedLockException;
import dev.distlock.FencedLock;
import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.LeaseOptions;
import dev.distlock.redis.RedisLockRegistry;
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
 * waiter does not hang, new acquisitions work (a Jedis pool's connections included),
 * fencing tokens go on increasing although Redis forgot the last ones (they are issued
 * from the server's clock), and the release signals' subscriptions are restored, so that
 * a waiter is woken by a release rather than by its holder's lease running out.
 */
@Timeout(60)
class RedisRestartTests {

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration RECOVERY = Duration.ofSeconds(15);

	private static final String WAITING_FOR_RELEASE = "dev.distlock.redis.ReleaseSignals$Subscription.await";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@ParameterizedTest
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

	@ParameterizedTest
	@EnumSource(TestDriver.class)
	void waiterForAHeldLockDoesNotHangWhenRedisRestarts(TestDriver driver) throws Exception {
		TestLockRegistry holder = registry(driver);
		TestLockRegistry waiter = registry(driver);
		long before = holder.registry().acquire("job", Duration.ZERO).fencingToken();
		ExecutorService executor = Executors.newSingleThreadExecutor();
		this.closer.add(executor::shutdownNow);
		long startNanos = System.nanoTime();
		CompletableFuture<Optional<LockLease>> waiting = CompletableFuture
			.supplyAsync(() -> waiter.registry().tryAcquire("job", Duration.ofSeconds(10)), executor);
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), COMMAND_TIMEOUT)) {
			await().atMost(Duration.ofSeconds(5))
				.until(() -> client.sync().pubsubNumsub("lock:job").get("lock:job") == 1L);
		}
		redis.server().kill();
		redis.server().restart();
		String outcome;
		try {
			Optional<LockLease> acquired = waiting.get(15, TimeUnit.SECONDS);
			assertThat(acquired).as("acquired after the restart").isPresent();
			assertThat(acquired.get().isValid()).isTrue();
			assertThat(acquired.get().fencingToken()).as("issued after the restart").isGreaterThan(before);
			outcome = "acquired with fencing token " + acquired.get().fencingToken();
			acquired.get().release();
		}
		catch (ExecutionException ex) {
			assertThat(ex.getCause()).isInstanceOf(DistributedLockException.class);
			outcome = "failed: " + ex.getCause().getMessage();
		}
		Duration waited = Duration.ofNanos(System.nanoTime() - startNanos);
		assertThat(waited).isLessThan(Duration.ofSeconds(10).plus(COMMAND_TIMEOUT).plusSeconds(1));
		System.out.println("[restart] waiter " + outcome + " after " + waited.toMillis() + " ms");
	}

	@ParameterizedTest
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
		await().atMost(RECOVERY)
			.pollInterval(Duration.ofMillis(50))
			.ignoreException(DistributedLockException.class)
			.untilAsserted(() -> registry.registry().ping());
		LockLease after = registry.registry().acquire("ledger", Duration.ZERO);
		System.out.println("[restart] first acquisition after restart took "
				+ Duration.ofNanos(System.nanoTime() - startNanos).toMillis() + " ms, fencing token "
				+ after.fencingToken() + " (was " + before + ")");
		assertThat(after.fencingToken()).as("greater although Redis lost the last token").isGreaterThan(before);
		after.release();
	}

	@ParameterizedTest
	@EnumSource(TestDriver.class)
	void waiterSubscribedBeforeTheRestartIsWokenByAReleaseAfterIt(TestDriver driver) throws Exception {
		RedisLockRegistry waiting = registry(driver).registry();
		RedisLockRegistry holding = registry(TestDriver.LETTUCE).registry();
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		waitForARelease(waiting, holding, waiter).release();
		redis.server().kill();
		redis.server().restart();
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), COMMAND_TIMEOUT)) {
			await().atMost(RECOVERY)
				.ignoreExceptions()
				.until(() -> client.sync().pubsubNumsub("lock:job").get("lock:job") == 1L);
		}
		await().atMost(RECOVERY).ignoreException(DistributedLockException.class).untilAsserted(() -> holding.ping());
		waitForARelease(waiting, holding, waiter).release();
	}

	/**
	 * Let the waiting registry wait for "job" on the waiter thread while the holding
	 * registry holds it with a lease far longer than the wait, release it, and return the
	 * waiter's lease: only the release message can have woken the waiter in time.
	 */
	private LockLease waitForARelease(RedisLockRegistry waiting, RedisLockRegistry holding, TestThread waiter)
			throws Exception {
		LockLease held = holding.tryAcquire("job", Duration.ZERO, LeaseOptions.fixed(Duration.ofSeconds(30)))
			.orElseThrow();
		CompletableFuture<LockLease> acquired = waiter.call(() -> waiting.acquire("job", Duration.ofSeconds(10)));
		waiter.awaitIn(WAITING_FOR_RELEASE, RECOVERY);
		held.release();
		LockLease lease = acquired.get(15, TimeUnit.SECONDS);
		assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
		return lease;
	}

	private TestLockRegistry registry(TestDriver driver) {
		return this.closer.add(TestLockRegistry.create(driver, redis.server().uri(),
				RedisLockSettings.of("lock:", LEASE).withCommandTimeout(COMMAND_TIMEOUT)));
	}

}
