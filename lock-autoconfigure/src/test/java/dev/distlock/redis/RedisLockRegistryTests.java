package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.DistributedLockException;
import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Behaviour of {@link RedisLockRegistry} against a real {@code redis-server}.
 */
@Timeout(60)
class RedisLockRegistryTests {

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
	void leaseHoldsTheLockUntilReleased() {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		RedisLockRegistry rival = registry(Duration.ofSeconds(30));
		LockLease lease = registry.acquire("order", Duration.ZERO);
		assertThat(lease.isValid()).isTrue();
		assertThat(lease.name()).isEqualTo("order");
		assertThat(this.commands.exists("lock:order")).isOne();
		assertThat(rival.tryAcquire("order", Duration.ZERO)).isEmpty();
		lease.release();
		assertThat(lease.isValid()).isFalse();
		assertThat(this.commands.exists("lock:order")).isZero();
		assertThat(rival.tryAcquire("order", Duration.ZERO)).isPresent();
	}

	@Test
	void acquireOfAHeldLockThrowsAfterItsWaitTime() {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		registry.acquire("order", Duration.ZERO);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry(Duration.ofSeconds(30)).acquire("order", Duration.ofMillis(100)))
			.withMessage("Lock 'order' was not acquired within PT0.1S");
	}

	@Test
	void fencingTokensIncreaseAcrossClientsAndExpiries() {
		RedisLockRegistry first = registry(Duration.ofSeconds(30));
		RedisLockRegistry second = registry(Duration.ofSeconds(30));
		long previous = 0;
		for (int i = 0; i < 5; i++) {
			RedisLockRegistry registry = (i % 2 == 0) ? first : second;
			LockLease expiring = registry
				.tryAcquire("report", Duration.ofSeconds(5), LeaseOptions.fixed(Duration.ofMillis(50)))
				.orElseThrow();
			assertThat(expiring.fencingToken()).isGreaterThan(previous);
			previous = expiring.fencingToken();
		}
		assertThat(this.commands.get("{lock:report}:fence")).isEqualTo(Long.toString(previous));
	}

	@Test
	void acquireTakesOneRoundTripReleaseOneAndReentryNone() {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		registry.acquire("warm-up", Duration.ZERO).release();
		CommandStats stats = new CommandStats(this.commands);
		FencedLock lock = registry.obtain("order");

		stats.reset();
		assertThat(lock.tryLock()).isTrue();
		// Redis counts the commands a script runs as well as the script call itself.
		assertThat(stats.calls()).isEqualTo(Map.of("evalsha", 1L, "set", 1L, "incrby", 1L));

		stats.reset();
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
		assertThat(stats.calls()).isEmpty();

		stats.reset();
		lock.unlock();
		assertThat(stats.calls()).isEqualTo(Map.of("evalsha", 1L, "get", 1L, "del", 1L, "publish", 1L));
	}

	@Test
	void lockIsReentrantOnTheOwningThreadAndKeepsItsFencingToken() {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		FencedLock lock = registry.obtain("order");
		lock.lock();
		long token = lock.fencingToken();
		FencedLock sameLock = registry.obtain("order");
		assertThat(sameLock.tryLock()).isTrue();
		assertThat(sameLock.fencingToken()).isEqualTo(token);
		sameLock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(this.commands.exists("lock:order")).isOne();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(this.commands.exists("lock:order")).isZero();
	}

	@Test
	void unlockByAThreadThatDoesNotHoldTheLockThrows() throws Exception {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		FencedLock lock = registry.obtain("order");
		lock.lock();
		CompletableFuture<Void> foreignUnlock = CompletableFuture.runAsync(lock::unlock);
		assertThat(foreignUnlock).failsWithin(Duration.ofSeconds(5))
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(IllegalMonitorStateException.class)
			.withMessageContaining("Lock 'order' is not held by thread");
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> registry.obtain("other").fencingToken());
		lock.unlock();
	}

	@Test
	void leaseIsReleasedFromAnotherThreadAndReleasingTwiceDoesNothing() throws Exception {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		LockLease lease = registry.acquire("job", Duration.ZERO);
		CompletableFuture.runAsync(lease::release).get(5, TimeUnit.SECONDS);
		assertThat(this.commands.exists("lock:job")).isZero();
		lease.release();
		assertThat(registry.tryAcquire("job", Duration.ZERO)).isPresent();
	}

	@Test
	void waiterIsWokenByTheReleaseLongBeforeTheLeaseRunsOut() throws Exception {
		RedisLockRegistry holder = registry(Duration.ofSeconds(30));
		RedisLockRegistry waiter = registry(Duration.ofSeconds(30));
		LockLease held = holder.acquire("order", Duration.ZERO);
		CompletableFuture<LockLease> waiting = CompletableFuture
			.supplyAsync(() -> waiter.acquire("order", Duration.ofSeconds(20)));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.commands.pubsubNumsub("lock:order").get("lock:order") == 1L);
		long releasedAt = System.nanoTime();
		held.release();
		LockLease acquired = waiting.get(10, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(5));
		assertThat(acquired.fencingToken()).isGreaterThan(held.fencingToken());
	}

	@Test
	void aLockWaitedForAgainKeepsItsSubscription() throws Exception {
		RedisLockRegistry holder = registry(Duration.ofSeconds(30));
		RedisLockRegistry waiter = registry(Duration.ofSeconds(30));
		CommandStats stats = new CommandStats(this.commands);
		stats.reset();
		for (int i = 0; i < 3; i++) {
			LockLease held = holder.acquire("order", Duration.ZERO);
			CompletableFuture<LockLease> waiting = CompletableFuture
				.supplyAsync(() -> waiter.acquire("order", Duration.ofSeconds(20)));
			await().atMost(Duration.ofSeconds(5))
				.until(() -> this.commands.pubsubNumsub("lock:order").get("lock:order") == 1L);
			held.release();
			waiting.get(10, TimeUnit.SECONDS).release();
		}
		assertThat(stats.calls()).containsEntry("subscribe", 1L).doesNotContainKey("unsubscribe");
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
				.until(() -> this.commands.pubsubNumsub("lock:order").get("lock:order") == 1L);
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

	@Test
	void queuedThreadsOfOneJvmTakeTheLockOverWithReservedTokensAndNoRoundTrip() throws Exception {
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
					// Long enough for the next thread to offer to take the lock over.
					Thread.sleep(50);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				finally {
					lock.unlock();
				}
			});
			threads.add(thread);
			thread.start();
		}
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.commands.pubsubNumsub("lock:order").get("lock:order") == 1L && threads.stream()
				.allMatch((thread) -> thread.getState() == Thread.State.TIMED_WAITING
						|| thread.getState() == Thread.State.WAITING));
		held.release();
		for (Thread thread : threads) {
			thread.join(10_000);
		}
		long first = held.fencingToken() + 1;
		assertThat(tokens).containsExactly(first, first + 1, first + 2);
		assertThat(keyValues).hasSize(3).containsOnly(keyValues.get(0));
		assertThat(this.commands.get("{lock:order}:fence")).isEqualTo(Long.toString(first + 2));
		assertThat(this.commands.exists("lock:order")).isZero();
	}

	@Test
	void watchdogKeepsALockThroughThreeLeases() throws Exception {
		TestLockRegistry holder = testRegistry(Duration.ofMillis(300));
		RedisLockRegistry rival = registry(Duration.ofMillis(300));
		LockLease lease = holder.registry().acquire("job", Duration.ZERO);
		long end = System.nanoTime() + Duration.ofMillis(900).toNanos();
		while (System.nanoTime() < end) {
			assertThat(rival.tryAcquire("job", Duration.ZERO)).isEmpty();
			Thread.sleep(50);
		}
		assertThat(lease.isValid()).isTrue();
		lease.release();
		assertThat(holder.lostEvents()).isEmpty();
	}

	@Test
	void renewalThatFindsAnotherHolderMarksTheLeaseLostAndReleaseLeavesTheNewKey() {
		TestLockRegistry holder = testRegistry(Duration.ofSeconds(30));
		LockLease lease = holder.registry().acquire("job", Duration.ZERO);
		this.commands.set("lock:job", "someone-else");
		holder.registry().renewLeases();
		assertThat(lease.isValid()).isFalse();
		assertThat(holder.lostEvents()).singleElement().satisfies((event) -> {
			assertThat(event.name()).isEqualTo("job");
			assertThat(event.key()).isEqualTo("lock:job");
			assertThat(event.fencingToken()).isEqualTo(lease.fencingToken());
		});
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release)
			.withMessageContaining("Lock 'job' was lost before its release");
		assertThat(this.commands.get("lock:job")).isEqualTo("someone-else");
		assertThat(holder.lostEvents()).hasSize(1);
	}

	@Test
	void fixedLeaseExpiresAndItsReleaseReportsTheLoss() throws Exception {
		TestLockRegistry holder = testRegistry(Duration.ofSeconds(30));
		LockLease lease = holder.registry()
			.tryAcquire("job", Duration.ZERO, LeaseOptions.fixed(Duration.ofMillis(100)))
			.orElseThrow();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.commands.exists("lock:job") == 0L);
		assertThat(lease.isValid()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		assertThat(holder.lostEvents()).singleElement()
			.satisfies((event) -> assertThat(event.reason()).contains("expired or held by another owner"));
	}

	@Test
	void minHoldTimeKeepsTheLockAfterAnEarlyRelease() {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		LockLease lease = registry
			.tryAcquire("nightly", Duration.ZERO, LeaseOptions.WATCHDOG.withMinHoldTime(Duration.ofSeconds(10)))
			.orElseThrow();
		lease.release();
		assertThat(this.commands.pttl("lock:nightly")).isBetween(5_000L, 10_000L);
		assertThat(registry(Duration.ofSeconds(30)).tryAcquire("nightly", Duration.ZERO)).isEmpty();
	}

	@Test
	void interruptWhileWaitingThrowsAndKeepsTheInterruptFlag() throws Exception {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		registry(Duration.ofSeconds(30)).acquire("order", Duration.ZERO);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		AtomicReference<Boolean> interruptFlag = new AtomicReference<>();
		CountDownLatch done = new CountDownLatch(1);
		Thread waiter = new Thread(() -> {
			try {
				registry.obtain("order").tryLock(Duration.ofSeconds(30));
			}
			catch (Throwable ex) {
				failure.set(ex);
				interruptFlag.set(Thread.currentThread().isInterrupted());
			}
			done.countDown();
		});
		waiter.start();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.commands.pubsubNumsub("lock:order").get("lock:order") == 1L);
		waiter.interrupt();
		assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(failure.get()).isInstanceOf(LockAcquisitionException.class)
			.hasMessage("Interrupted while waiting for lock 'order'");
		assertThat(interruptFlag.get()).isTrue();
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
	void emptyNamesAndNegativeWaitTimesAreRejected() {
		RedisLockRegistry registry = registry(Duration.ofSeconds(30));
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(""))
			.withMessage("'name' must not be empty");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire("order", Duration.ofSeconds(-1)))
			.withMessage("Wait time of lock 'order' must not be negative");
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
