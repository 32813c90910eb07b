package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TestThread;
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
 * The lock delay within one JVM: per hold through {@link LeaseOptions}, across a lease
 * that runs out, across a hand-over between holds with different delays, and across a
 * release or hand-over that reaches Redis after the lease ran out (Redis paused
 * meanwhile). Rival JVMs that crash or stall are in {@link CrossProcessLockTests}.
 */
@Timeout(30)
class LockDelayTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(5);

	private static final Duration FIXED_LEASE = Duration.ofSeconds(1);

	private static final LeaseOptions FIXED_AND_DELAYED = LeaseOptions.fixed(FIXED_LEASE)
		.withLockDelay(Duration.ofSeconds(10));

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
		redis.server().resume();
		this.closer.close();
	}

	@Test
	void aFixedLeaseThatRunsOutKeepsTheLockForItsDelay() {
		RedisLockRegistry registry = registry();
		LockLease expiring = expiredLease(registry, Duration.ofSeconds(1));
		assertThat(registry.tryAcquire("report", Duration.ZERO)).as("within the lock delay").isEmpty();
		long startNanos = System.nanoTime();
		try (LockLease next = registry.tryAcquire("report", Duration.ofSeconds(5)).orElseThrow()) {
			assertThat(next.fencingToken()).isGreaterThan(expiring.fencingToken());
		}
		assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).isGreaterThan(Duration.ofMillis(500));
	}

	/**
	 * The release of a hold whose lease ran out (here reported lost when its fixed lease
	 * ran out, as the interceptor then releases a future's locks at once) must not free
	 * the lock: the delay protects the work that may still run under it.
	 */
	@Test
	void aReleaseAfterTheLeaseRanOutKeepsTheLockForItsDelay() {
		LockLease expiring = expiredLease(registry(), Duration.ofSeconds(2));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(expiring::release);
		assertThat(this.commands.get("lock:report")).as("the token is gone, the key stays").isEqualTo("released");
		assertThat(registry().tryAcquire("report", Duration.ZERO)).as("within the lock delay").isEmpty();
		try (LockLease next = registry().tryAcquire("report", Duration.ofSeconds(5)).orElseThrow()) {
			assertThat(next.fencingToken()).isGreaterThan(expiring.fencingToken());
		}
	}

	/**
	 * A thread without a lock delay holds the lock with a thread of its JVM queued behind
	 * it, which asked for a delay, and releases: the transfer gives the key the waiter's
	 * lease plus its delay.
	 */
	@Test
	void aHandOverToAWaiterWithAnotherLockDelayGivesTheKeyTheWaitersDelay() throws Exception {
		LockLease elsewhere = registry().acquire("ledger", Duration.ZERO);
		RedisLockRegistry registry = registry();
		FencedLock plain = registry.obtain("ledger");
		FencedLock delayed = registry.obtain("ledger", LeaseOptions.WATCHDOG.withLockDelay(Duration.ofSeconds(20)));
		CountDownLatch firstHolds = new CountDownLatch(1);
		CountDownLatch firstMayRelease = new CountDownLatch(1);
		Thread first = new Thread(() -> {
			plain.lock();
			try {
				firstHolds.countDown();
				firstMayRelease.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				plain.unlock();
			}
		});
		first.start();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> TestLockRegistry.waitersOf(this.commands, "lock:ledger") == 1L);
		CompletableFuture<Long> second = new CompletableFuture<>();
		Thread queued = new Thread(() -> {
			delayed.lock();
			try {
				second.complete(this.commands.pttl("lock:ledger"));
			}
			finally {
				delayed.unlock();
			}
		});
		queued.start();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> queued.getState() == Thread.State.WAITING || queued.getState() == Thread.State.TIMED_WAITING);
		elsewhere.release();
		assertThat(firstHolds.await(5, TimeUnit.SECONDS)).isTrue();
		// The queued thread offers to take the lock over and waits in Redis
		Thread.sleep(200);
		firstMayRelease.countDown();
		assertThat(second.get(10, TimeUnit.SECONDS)).as("milliseconds the waiter's key lives")
			.isGreaterThan(LEASE.toMillis());
		first.join(5_000);
		queued.join(5_000);
	}

	/**
	 * A holder with a fixed lease of 1 s and a lock delay of 10 s releases while a thread
	 * of its JVM waits, so its release transfers the lock, and the transfer reaches Redis
	 * after the lease ran out: the lock delay must keep the lock from the waiter too, and
	 * the holder's unlock reports the loss.
	 */
	@Test
	void aTransferThatReachesRedisAfterTheLeaseRanOutHandsNothingOverWithinTheDelay() throws Exception {
		TestLockRegistry registry = testRegistry();
		FencedLock lock = registry.registry().obtain("report", FIXED_AND_DELAYED);
		TestThread holder = this.closer.add(TestThread.start("holder"));
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		long acquiredNanos = System.nanoTime();
		assertThat(holder.call(lock::tryLock).get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		CompletableFuture<Boolean> waiting = waiter.call(() -> lock.tryLock(Duration.ofSeconds(4)));
		waiter.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		assertUnlockReachingRedisAfterTheLeaseIsReportedLost(registry, holder, lock, acquiredNanos,
				"dev.distlock.redis.HandOver.transfer");
		assertThat(waiting.get(10, TimeUnit.SECONDS)).as("within the lock delay").isFalse();
	}

	/**
	 * The same holder releases with nobody waiting, and the release reaches Redis after
	 * the lease ran out: the key stays for the rest of the delay, and the unlock reports
	 * the loss.
	 */
	@Test
	void aReleaseThatReachesRedisAfterTheLeaseRanOutIsReportedLost() throws Exception {
		TestLockRegistry registry = testRegistry();
		FencedLock lock = registry.registry().obtain("report", FIXED_AND_DELAYED);
		TestThread holder = this.closer.add(TestThread.start("holder"));
		long acquiredNanos = System.nanoTime();
		assertThat(holder.call(lock::tryLock).get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		assertUnlockReachingRedisAfterTheLeaseIsReportedLost(registry, holder, lock, acquiredNanos,
				"dev.distlock.redis.RedisLockCommands.awaitUninterruptibly");
	}

	/**
	 * Pause Redis, have the holder unlock, wait until it sent its script (its own check
	 * found the lease valid) and the lease ran out, then resume Redis: the unlock must
	 * throw, the loss be published, and the key stay blocked.
	 * @param sending the method the holder waits in once its script is sent
	 */
	private void assertUnlockReachingRedisAfterTheLeaseIsReportedLost(TestLockRegistry registry, TestThread holder,
			FencedLock lock, long acquiredNanos, String sending) {
		redis.server().pause();
		CompletableFuture<Void> unlocking = holder.run(lock::unlock);
		holder.awaitIn(sending, WAIT);
		assertThat(Duration.ofNanos(System.nanoTime() - acquiredNanos)).as("sent within the lease")
			.isLessThan(FIXED_LEASE);
		Duration leaseOver = FIXED_LEASE.plusMillis(200);
		await().atMost(WAIT).until(() -> Duration.ofNanos(System.nanoTime() - acquiredNanos).compareTo(leaseOver) > 0);
		redis.server().resume();
		assertThat(unlocking).failsWithin(WAIT)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(LockLostException.class)
			.withMessageStartingWith("Lock 'report' was lost before its release");
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(registry.lostEvents()).singleElement()
				.satisfies((lost) -> assertThat(lost.reason()).contains("its release found it expired")));
		assertThat(this.commands.get("lock:report")).as("the token is gone, the key stays").isEqualTo("released");
	}

	/**
	 * Return a lease of lock {@code report} with a fixed lease of 200 ms and the given
	 * lock delay, once its lease has run out.
	 */
	private static LockLease expiredLease(RedisLockRegistry registry, Duration lockDelay) {
		LockLease lease = registry
			.tryAcquire("report", Duration.ZERO, LeaseOptions.fixed(Duration.ofMillis(200)).withLockDelay(lockDelay))
			.orElseThrow();
		await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
		return lease;
	}

	private RedisLockRegistry registry() {
		return testRegistry().registry();
	}

	/**
	 * Return a registry whose commands wait 5 s for Redis, longer than Redis is paused.
	 */
	private TestLockRegistry testRegistry() {
		return this.closer.add(TestLockRegistry.create(redis.server().uri(),
				RedisLockSettings.of("lock:", LEASE).withCommandTimeout(WAIT)));
	}

}
