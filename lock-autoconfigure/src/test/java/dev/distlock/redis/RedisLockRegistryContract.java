package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.distlock.DistributedSemaphore;
import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.Leadership;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.api.sync.RedisKeyCommands;
import io.lettuce.core.api.sync.RedisStringCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The behavioural contract of the {@link RedisLockRegistry}, written once and run on
 * every Redis deployment distlock supports: a subclass per deployment (standalone,
 * Sentinel, Cluster) connects registries and a plain client to it, and a subclass of that
 * per {@link TestDriver} runs it through Spring Data Redis on Lettuce and on Jedis. Each
 * registry stands for one application instance. The contracts of read/write locks, of
 * what a registry tells about any lock and of lease extensions run with it
 * ({@link ReadWriteLockContract}, {@link LockStateContract},
 * {@link LeaseExtensionContract}).
 */
@Timeout(60)
abstract class RedisLockRegistryContract implements ReadWriteLockContract, LockStateContract, LeaseExtensionContract {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final Closer closer = new Closer();

	private Keys keys;

	/**
	 * Return how the registries talk to Redis: Lettuce's own client unless a subclass
	 * runs the contract on another driver.
	 * @return the driver
	 */
	protected TestDriver driver() {
		return TestDriver.LETTUCE;
	}

	/**
	 * Connect a registry, as one application instance would, to the deployment.
	 * @param leaseTime the lease time in watchdog mode
	 * @return the registry; the contract closes it
	 */
	protected abstract TestLockRegistry connect(Duration leaseTime);

	/**
	 * Empty the deployment of every key, and connect a plain client to it to look at the
	 * keys the registries write.
	 * @param closer closes the client after the test
	 * @return the client's key and string commands
	 */
	protected abstract Keys connectKeys(Closer closer);

	@BeforeEach
	void connectKeys() {
		this.keys = connectKeys(this.closer);
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void leaseHoldsTheLockUntilReleased() {
		RedisLockRegistry registry = registry(LEASE);
		RedisLockRegistry rival = registry(LEASE);
		LockLease lease = registry.acquire("order", Duration.ZERO);
		assertThat(lease.isValid()).isTrue();
		assertThat(lease.name()).isEqualTo("order");
		assertThat(this.keys.keys().exists("lock:order")).isOne();
		assertThat(rival.tryAcquire("order", Duration.ZERO)).isEmpty();
		lease.release();
		assertThat(lease.isValid()).isFalse();
		assertThat(this.keys.keys().exists("lock:order")).isZero();
		assertThat(rival.tryAcquire("order", Duration.ZERO)).isPresent();
	}

	@Test
	void acquireOfAHeldLockThrowsAfterItsWaitTime() {
		registry(LEASE).acquire("order", Duration.ZERO);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> registry(LEASE).acquire("order", Duration.ofMillis(100)))
			.withMessage("Lock 'order' was not acquired within PT0.1S");
	}

	@Test
	void fencingTokensIncreaseAcrossClientsAndExpiries() {
		RedisLockRegistry first = registry(LEASE);
		RedisLockRegistry second = registry(LEASE);
		long previous = 0;
		for (int i = 0; i < 5; i++) {
			RedisLockRegistry registry = (i % 2 == 0) ? first : second;
			LockLease expiring = registry
				.tryAcquire("report", Duration.ofSeconds(5), LeaseOptions.fixed(Duration.ofMillis(50)))
				.orElseThrow();
			assertThat(expiring.fencingToken()).isGreaterThan(previous);
			previous = expiring.fencingToken();
		}
		assertThat(this.keys.strings().get(LockKeys.fenceKey("lock:report"))).isEqualTo(Long.toString(previous));
	}

	@Test
	void lockIsReentrantOnTheOwningThreadAndKeepsItsFencingToken() {
		RedisLockRegistry registry = registry(LEASE);
		FencedLock lock = registry.obtain("order");
		lock.lock();
		long token = lock.fencingToken();
		FencedLock sameLock = registry.obtain("order");
		assertThat(sameLock.tryLock()).isTrue();
		assertThat(sameLock.fencingToken()).isEqualTo(token);
		sameLock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(this.keys.keys().exists("lock:order")).isOne();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(this.keys.keys().exists("lock:order")).isZero();
	}

	/**
	 * Handles of one name obtained twice are equal, so they work in sets and as map keys;
	 * other names, options, sides, permits or registries give other handles.
	 */
	@Test
	void handlesObtainedTwiceWithTheSameNameAndOptionsAreEqual() {
		RedisLockRegistry registry = registry(LEASE);
		LeaseOptions fixed = LeaseOptions.fixed(Duration.ofSeconds(5));
		assertThat(registry.obtain("order")).isEqualTo(registry.obtain("order"))
			.hasSameHashCodeAs(registry.obtain("order"))
			.isEqualTo(registry.obtain("order", LeaseOptions.WATCHDOG))
			.isEqualTo(registry.readWriteLock("order").writeLock())
			.isNotEqualTo(registry.obtain("invoice"))
			.isNotEqualTo(registry.obtain("order", fixed))
			.isNotEqualTo(registry.readWriteLock("order").readLock())
			.isNotEqualTo(registry(LEASE).obtain("order"));
		assertThat(registry.obtain("order", fixed))
			.isEqualTo(registry.obtain("order", LeaseOptions.fixed(Duration.ofSeconds(5))))
			.hasSameHashCodeAs(registry.obtain("order", LeaseOptions.fixed(Duration.ofSeconds(5))));
		assertThat(Set.of(registry.obtain("order"), registry.obtain("invoice"))).contains(registry.obtain("order"),
				registry.obtain("invoice"));
		assertThat(registry.readWriteLock("order")).isEqualTo(registry.readWriteLock("order"))
			.hasSameHashCodeAs(registry.readWriteLock("order"))
			.isNotEqualTo(registry.readWriteLock("invoice"));
		assertThat(registry.readWriteLock("order").readLock()).isEqualTo(registry.readWriteLock("order").readLock())
			.hasSameHashCodeAs(registry.readWriteLock("order").readLock());
		assertThat(registry.semaphore("pool", 2)).isEqualTo(registry.semaphore("pool", 2))
			.hasSameHashCodeAs(registry.semaphore("pool", 2))
			.isNotEqualTo(registry.semaphore("pool", 3))
			.isNotEqualTo(registry.semaphore("queue", 2));
	}

	@Test
	void unlockByAThreadThatDoesNotHoldTheLockThrowsAndLeavesTheHolderAlone() throws Exception {
		FencedLock lock = registry(LEASE).obtain("inventory");
		assertThat(lock.tryLock()).isTrue();
		assertThat(failureOnOtherThread(lock::unlock)).isInstanceOf(IllegalMonitorStateException.class)
			.hasMessage("Lock 'inventory' is not held by thread 'other-thread'");
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(this.keys.keys().exists("lock:inventory")).isOne();
		lock.unlock();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock)
			.withMessage("Lock 'inventory' is not held by thread '" + Thread.currentThread().getName() + "'");
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> registry(LEASE).obtain("other").fencingToken());
	}

	@Test
	void currentHoldOfAThreadOwnedLockCannotBeReleasedOnAnotherThread() throws Exception {
		FencedLock lock = registry(LEASE).obtain("owned");
		assertThat(lock.tryLock()).isTrue();
		LockLease hold = lock.currentHold();
		assertThat(failureOnOtherThread(hold::release)).isInstanceOf(IllegalMonitorStateException.class)
			.hasMessage("Lock 'owned' is not held by thread 'other-thread'");
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(this.keys.keys().exists("lock:owned")).isZero();
	}

	@Test
	void leaseTakenOnOneThreadIsReleasedOnAnotherAndReleasingTwiceLeavesTheNextHolderAlone() throws Exception {
		LockLease lease = registry(LEASE).acquire("report", Duration.ZERO);
		assertThat(failureOnOtherThread(lease::release)).isNull();
		assertThat(lease.isValid()).isFalse();
		LockLease next = registry(LEASE).acquire("report", Duration.ZERO);
		String nextValue = this.keys.strings().get("lock:report");
		lease.release();
		lease.close();
		assertThat(next.isValid()).isTrue();
		assertThat(this.keys.strings().get("lock:report")).as("the next holder's key").isEqualTo(nextValue);
		next.release();
	}

	@Test
	void waiterIsWokenByTheReleaseLongBeforeTheLeaseRunsOut() throws Exception {
		LockLease held = registry(LEASE).acquire("order", Duration.ZERO);
		RedisLockRegistry waiting = registry(LEASE);
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		CompletableFuture<LockLease> acquired = waiter.call(() -> waiting.acquire("order", Duration.ofSeconds(20)));
		waiter.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		long releasedAt = System.nanoTime();
		held.release();
		assertThat(acquired.get(10, TimeUnit.SECONDS).fencingToken()).isGreaterThan(held.fencingToken());
		assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void queuedThreadsOfOneInstanceTakeTheLockOverWithReservedTokens() throws Exception {
		LockLease held = registry(LEASE).acquire("order", Duration.ZERO);
		RedisLockRegistry registry = registry(LEASE);
		List<Long> tokens = new CopyOnWriteArrayList<>();
		List<TestThread> threads = new ArrayList<>();
		List<CompletableFuture<Void>> done = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			TestThread thread = this.closer.add(TestThread.start("queued-" + i));
			threads.add(thread);
			done.add(thread.run(() -> {
				FencedLock lock = registry.obtain("order");
				lock.lock();
				try {
					tokens.add(lock.fencingToken());
				}
				finally {
					lock.unlock();
				}
			}));
		}
		await().atMost(WAIT).until(() -> threads.stream().allMatch((thread) -> thread.isIn("dev.distlock.redis.")));
		held.release();
		CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
		assertThat(tokens).hasSize(3).doesNotHaveDuplicates().allMatch((token) -> token > held.fencingToken());
		assertThat(this.keys.keys().exists("lock:order")).isZero();
	}

	@Test
	void waitersOfOtherInstancesGetTheLockInTheOrderTheyCameAndLeaveNoQueueBehind() throws Exception {
		LockLease held = registry(LEASE).acquire("order", Duration.ZERO);
		TestThread first = this.closer.add(TestThread.start("first"));
		TestThread second = this.closer.add(TestThread.start("second"));
		RedisLockRegistry firstRegistry = registry(LEASE);
		RedisLockRegistry secondRegistry = registry(LEASE);
		CompletableFuture<LockLease> firstWaits = first
			.call(() -> firstRegistry.acquire("order", Duration.ofSeconds(20)));
		first.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		CompletableFuture<LockLease> secondWaits = second
			.call(() -> secondRegistry.acquire("order", Duration.ofSeconds(20)));
		second.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		held.release();
		LockLease firstHold = firstWaits.get(10, TimeUnit.SECONDS);
		assertThat(firstHold.fencingToken()).isGreaterThan(held.fencingToken());
		assertTheSecondWaiterFollows(firstHold, secondWaits);
		assertThat(this.keys.keys().exists("lock:order", queueKey("lock:order"), waitersKey("lock:order"))).isZero();
	}

	@Test
	void waiterThatGivesUpLeavesTheQueueAndTryLockWithoutWaitingNeverJoinsIt() {
		LockLease held = registry(LEASE).acquire("order", Duration.ZERO);
		RedisLockRegistry waiting = registry(LEASE);
		assertThat(waiting.obtain("order").tryLock()).isFalse();
		assertThat(this.keys.keys().exists(queueKey("lock:order"), waitersKey("lock:order"))).isZero();
		assertThat(waiting.tryAcquire("order", Duration.ofMillis(300))).isEmpty();
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(this.keys.keys().exists(queueKey("lock:order"), waitersKey("lock:order")))
				.isZero());
		held.release();
		assertThat(this.keys.keys().exists("lock:order")).isZero();
	}

	@Test
	void releaseKeptForAMinimumHoldTimeWakesTheFirstWaiterWhenTheHoldTimeEnds() throws Exception {
		LockLease held = registry(LEASE)
			.tryAcquire("order", Duration.ZERO, LeaseOptions.WATCHDOG.withMinHoldTime(Duration.ofMillis(500)))
			.orElseThrow();
		RedisLockRegistry waiting = registry(LEASE);
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		CompletableFuture<LockLease> acquired = waiter.call(() -> waiting.acquire("order", Duration.ofSeconds(20)));
		waiter.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		held.release();
		// Well before the 30 s lease the waiter saw when it last tried
		assertThat(acquired.get(10, TimeUnit.SECONDS).fencingToken()).isGreaterThan(held.fencingToken());
	}

	@Test
	void watchdogKeepsALockThroughThreeLeases() throws Exception {
		TestLockRegistry holder = testRegistry(Duration.ofMillis(300));
		RedisLockRegistry rival = registry(Duration.ofMillis(300));
		warmUpRenewals();
		LockLease lease = holder.registry().acquire("job", Duration.ZERO);
		assertKeptThroughThreeLeases(holder, lease, Duration.ofMillis(300),
				() -> rival.tryAcquire("job", Duration.ZERO));
	}

	@Test
	void renewalThatFindsAnotherHolderMarksTheLeaseLostAndReleaseLeavesTheNewKey() {
		TestLockRegistry holder = testRegistry(LEASE);
		LockLease lease = holder.registry().acquire("job", Duration.ZERO);
		this.keys.strings().set("lock:job", "someone-else");
		holder.registry().renewLeases();
		assertThat(lease.isValid()).isFalse();
		await().atMost(WAIT).untilAsserted(() -> assertThat(holder.lostEvents()).singleElement().satisfies((event) -> {
			assertThat(event.name()).isEqualTo("job");
			assertThat(event.key()).isEqualTo("lock:job");
			assertThat(event.fencingToken()).isEqualTo(lease.fencingToken());
		}));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release)
			.withMessageContaining("Lock 'job' was lost before its release");
		assertThat(this.keys.strings().get("lock:job")).isEqualTo("someone-else");
		assertThat(holder.lostEvents()).hasSize(1);
	}

	@Test
	void fixedLeaseIsReportedLostWhenItRunsOutAndItsReleaseThrows() {
		TestLockRegistry holder = testRegistry(LEASE);
		LockLease lease = holder.registry()
			.tryAcquire("job", Duration.ZERO, LeaseOptions.fixed(Duration.ofMillis(100)))
			.orElseThrow();
		await().atMost(WAIT).until(() -> this.keys.keys().exists("lock:job") == 0L);
		assertThat(lease.isValid()).isFalse();
		await().atMost(WAIT).until(() -> !holder.lostEvents().isEmpty());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		assertThat(holder.lostEvents()).singleElement()
			.satisfies((event) -> assertThat(event.reason()).contains("fixed lease of 100 ms ran out"));
	}

	@Test
	void minHoldTimeKeepsTheLockAfterAnEarlyRelease() {
		LockLease lease = registry(LEASE)
			.tryAcquire("nightly", Duration.ZERO, LeaseOptions.WATCHDOG.withMinHoldTime(Duration.ofSeconds(10)))
			.orElseThrow();
		lease.release();
		assertThat(this.keys.keys().pttl("lock:nightly")).isBetween(5_000L, 10_000L);
		assertThat(registry(LEASE).tryAcquire("nightly", Duration.ZERO)).isEmpty();
	}

	@Test
	void interruptingAThreadWaitingForALeaseThrowsAndKeepsItsInterruptFlag() throws Exception {
		RedisLockRegistry registry = registry(LEASE);
		assertInterruptible(() -> registry.acquire("interrupted", Duration.ofSeconds(30)));
	}

	@Test
	void interruptingAThreadWaitingInTryLockThrowsAndKeepsItsInterruptFlag() throws Exception {
		RedisLockRegistry registry = registry(LEASE);
		assertInterruptible(() -> registry.obtain("interrupted").tryLock(Duration.ofSeconds(30)));
	}

	@Test
	void emptyNamesAndNegativeWaitTimesAreRejected() {
		RedisLockRegistry registry = registry(LEASE);
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(""))
			.withMessage("'name' must not be empty");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire("order", Duration.ofSeconds(-1)))
			.withMessage("Wait time of lock 'order' must not be negative");
	}

	@Test
	void namesWithAnExclamationMarkAreRejected() {
		RedisLockRegistry registry = registry(LEASE);
		String message = "Lock name 'orders!eu' contains '!', which is reserved for distlock's helper keys";
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain("orders!eu")).withMessage(message);
		assertThatIllegalArgumentException().isThrownBy(() -> registry.tryAcquire("orders!eu", Duration.ZERO))
			.withMessage(message);
		assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire("orders!eu", Duration.ZERO))
			.withMessage(message);
	}

	@Test
	void leadershipPassesAtOnceToTheStandbyWhenTheLeaderYieldsOrStops() {
		Leadership first = registry(LEASE).leadership("scheduler");
		Leadership second = registry(LEASE).leadership("scheduler");
		first.start();
		await().atMost(WAIT).until(first::isLeader);
		long firstTerm = first.fencingToken().orElseThrow();
		second.start();
		await().atMost(WAIT).until(() -> this.keys.keys().exists(queueKey("lock:scheduler")) == 1);
		first.yieldLeadership();
		assertThat(first.isLeader()).isFalse();
		await().atMost(WAIT).until(second::isLeader);
		long secondTerm = second.fencingToken().orElseThrow();
		assertThat(secondTerm).isGreaterThan(firstTerm);
		await().atMost(WAIT).until(() -> this.keys.keys().exists(queueKey("lock:scheduler")) == 1);
		second.stop();
		await().atMost(WAIT).until(first::isLeader);
		assertThat(first.fencingToken().orElseThrow()).isGreaterThan(secondTerm);
	}

	@Test
	void semaphoreAdmitsAtMostItsPermitsAcrossInstancesAndATryWithoutWaitingNeverQueues() {
		RedisLockRegistry registry = registry(LEASE);
		DistributedSemaphore pool = registry.semaphore("pool", 2);
		DistributedSemaphore rivalPool = registry(LEASE).semaphore("pool", 2);
		LockLease first = pool.acquire(Duration.ZERO);
		LockLease second = rivalPool.acquire(Duration.ZERO);
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(rivalPool.tryAcquire(Duration.ZERO)).isEmpty();
		assertThat(registry(LEASE).semaphore("pool", 2).tryAcquire(Duration.ZERO)).isEmpty();
		assertThat(this.keys.keys().exists(queueKey("lock:pool"), waitersKey("lock:pool"))).isZero();
		assertThat(registry.heldLocks()).singleElement().satisfies((held) -> {
			assertThat(held.name()).isEqualTo("pool");
			assertThat(held.key()).isEqualTo(permitsKey("lock:pool"));
			assertThat(held.fencingToken()).isEqualTo(first.fencingToken());
			assertThat(held.kind()).isEqualTo("permit");
		});
		first.release();
		LockLease third = rivalPool.acquire(Duration.ZERO);
		assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
		second.release();
		third.release();
		assertThat(registry.heldLocks()).isEmpty();
		assertThat(this.keys.keys().exists(permitsKey("lock:pool"), queueKey("lock:pool"), waitersKey("lock:pool")))
			.isZero();
	}

	@Test
	void semaphoreWaitersAreWokenByAReleaseAndAdmittedInTheOrderTheyCame() throws Exception {
		LockLease held = registry(LEASE).semaphore("pool", 1).acquire(Duration.ZERO);
		TestThread first = this.closer.add(TestThread.start("first"));
		TestThread second = this.closer.add(TestThread.start("second"));
		DistributedSemaphore firstPool = registry(LEASE).semaphore("pool", 1);
		DistributedSemaphore secondPool = registry(LEASE).semaphore("pool", 1);
		CompletableFuture<LockLease> firstWaits = first.call(() -> firstPool.acquire(Duration.ofSeconds(20)));
		first.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		CompletableFuture<LockLease> secondWaits = second.call(() -> secondPool.acquire(Duration.ofSeconds(20)));
		second.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		long releasedAt = System.nanoTime();
		held.release();
		LockLease firstHold = firstWaits.get(10, TimeUnit.SECONDS);
		// The first waiter's next re-check was due a second after its last attempt.
		assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).as("woken by the release, not polling")
			.isLessThan(Duration.ofMillis(RedisAcquirer.RECHECK_MILLIS / 2));
		assertThat(firstHold.fencingToken()).isGreaterThan(held.fencingToken());
		assertTheSecondWaiterFollows(firstHold, secondWaits);
		assertThat(this.keys.keys().exists(permitsKey("lock:pool"), queueKey("lock:pool"), waitersKey("lock:pool")))
			.isZero();
	}

	@Test
	void permitTakenOnOneThreadIsReleasedOnAnother() throws Exception {
		DistributedSemaphore pool = registry(LEASE).semaphore("pool", 1);
		LockLease permit = pool.acquire(Duration.ZERO);
		assertThat(failureOnOtherThread(permit::release)).isNull();
		assertThat(permit.isValid()).isFalse();
		LockLease next = registry(LEASE).semaphore("pool", 1).acquire(Duration.ZERO);
		permit.release();
		assertThat(next.isValid()).isTrue();
		next.release();
		assertThat(this.keys.keys().exists(permitsKey("lock:pool"))).isZero();
	}

	@Test
	void eachAttemptCountsAgainstThePermitsItsSemaphorePasses() {
		DistributedSemaphore one = registry(LEASE).semaphore("pool", 1);
		DistributedSemaphore two = registry(LEASE).semaphore("pool", 2);
		LockLease first = one.acquire(Duration.ZERO);
		LockLease second = two.acquire(Duration.ZERO);
		assertThat(one.tryAcquire(Duration.ZERO)).as("two held, one permit").isEmpty();
		first.release();
		assertThat(one.tryAcquire(Duration.ZERO)).as("one held, one permit").isEmpty();
		LockLease third = two.acquire(Duration.ZERO);
		second.release();
		third.release();
	}

	@Test
	void watchdogKeepsAPermitThroughThreeLeases() throws Exception {
		Duration lease = Duration.ofMillis(500);
		TestLockRegistry holder = testRegistry(lease);
		DistributedSemaphore rivalPool = registry(lease).semaphore("pool", 1);
		warmUpRenewals();
		LockLease permit = holder.registry().semaphore("pool", 1).acquire(Duration.ZERO);
		assertKeptThroughThreeLeases(holder, permit, lease, () -> rivalPool.tryAcquire(Duration.ZERO));
	}

	@Test
	void renewalThatFindsAPermitGoneMarksItLostAndItsReleaseThrows() {
		TestLockRegistry holder = testRegistry(LEASE);
		LockLease permit = holder.registry().semaphore("pool", 1).acquire(Duration.ZERO);
		this.keys.keys().del(permitsKey("lock:pool"));
		holder.registry().renewLeases();
		assertThat(permit.isValid()).isFalse();
		await().atMost(WAIT).untilAsserted(() -> assertThat(holder.lostEvents()).singleElement().satisfies((event) -> {
			assertThat(event.name()).isEqualTo("pool");
			assertThat(event.fencingToken()).isEqualTo(permit.fencingToken());
		}));
		assertThat(holder.registry().heldLocks()).isEmpty();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(permit::release)
			.withMessageContaining("Lock 'pool' was lost before its release");
		assertThat(holder.lostEvents()).hasSize(1);
	}

	@Test
	void semaphoresNeedAtLeastOnePermitAndANameALockCouldHave() {
		RedisLockRegistry registry = registry(LEASE);
		assertThatIllegalArgumentException().isThrownBy(() -> registry.semaphore("pool", 0))
			.withMessage("Semaphore 'pool' must have at least 1 permit, but was given 0");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.semaphore("pool!eu", 1))
			.withMessage("Lock name 'pool!eu' contains '!', which is reserved for distlock's helper keys");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.semaphore("pool", 1).tryAcquire(Duration.ofSeconds(-1)))
			.withMessage("Wait time of 'pool' must not be negative");
	}

	/**
	 * Renew a lock and a permit once with time to spare: Redis caches the renew scripts
	 * and the JVM loads the classes of their first send, which on a busy machine took
	 * longer than a short lease.
	 */
	private void warmUpRenewals() {
		RedisLockRegistry warmUp = registry(LEASE);
		LockLease lock = warmUp.acquire("warm-up", Duration.ZERO);
		LockLease permit = warmUp.semaphore("warm-up-pool", 1).acquire(Duration.ZERO);
		warmUp.renewLeases();
		lock.release();
		permit.release();
	}

	/**
	 * Assert that a rival is refused for three of the holder's leases, and that the hold
	 * is valid then, released without a loss.
	 */
	private static void assertKeptThroughThreeLeases(TestLockRegistry holder, LockLease held, Duration lease,
			Supplier<Optional<LockLease>> rivalAttempt) throws InterruptedException {
		long end = System.nanoTime() + lease.multipliedBy(3).toNanos();
		while (System.nanoTime() < end) {
			assertThat(rivalAttempt.get()).isEmpty();
			Thread.sleep(50);
		}
		assertThat(held.isValid()).isTrue();
		held.release();
		assertThat(holder.lostEvents()).isEmpty();
	}

	/**
	 * Assert that the second waiter still waits while the first holds, and follows it
	 * with a greater fencing token when the first releases.
	 */
	private static void assertTheSecondWaiterFollows(LockLease firstHold, CompletableFuture<LockLease> secondWaits)
			throws Exception {
		assertThat(secondWaits).as("the second waiter waits for the first").isNotDone();
		firstHold.release();
		LockLease secondHold = secondWaits.get(10, TimeUnit.SECONDS);
		assertThat(secondHold.fencingToken()).isGreaterThan(firstHold.fencingToken());
		secondHold.release();
	}

	private void assertInterruptible(Runnable waitForTheLock) throws Exception {
		LockLease held = registry(LEASE).acquire("interrupted", Duration.ZERO);
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		CompletableFuture<Boolean> flagKept = waiter.call(() -> {
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(waitForTheLock::run)
				.withMessage("Interrupted while waiting for lock 'interrupted'")
				.withCauseInstanceOf(InterruptedException.class);
			return Thread.interrupted();
		});
		waiter.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		waiter.interrupt();
		assertThat(flagKept.get(5, TimeUnit.SECONDS)).as("interrupt flag kept").isTrue();
		assertThat(held.isValid()).isTrue();
		held.release();
	}

	private Throwable failureOnOtherThread(ThrowingAction action) throws Exception {
		TestThread other = this.closer.add(TestThread.start("other-thread"));
		return other.call(() -> {
			try {
				action.run();
				return null;
			}
			catch (Throwable ex) {
				return ex;
			}
		}).get(10, TimeUnit.SECONDS);
	}

	private static String queueKey(String lockKey) {
		return LockKeys.helperKey(lockKey, LockKeys.QUEUE);
	}

	private static String waitersKey(String lockKey) {
		return LockKeys.helperKey(lockKey, LockKeys.WAITERS);
	}

	private static String permitsKey(String semaphoreKey) {
		return LockKeys.helperKey(semaphoreKey, LockKeys.PERMITS);
	}

	@Override
	public RedisLockRegistry registry(Duration leaseTime) {
		return testRegistry(leaseTime).registry();
	}

	@Override
	public RedisKeyCommands<String, String> keyCommands() {
		return this.keys.keys();
	}

	@Override
	public Closer closer() {
		return this.closer;
	}

	@Override
	public TestLockRegistry testRegistry(Duration leaseTime) {
		return this.closer.add(connect(leaseTime));
	}

	/**
	 * The commands of a plain client that the contract looks at keys with.
	 *
	 * @param keys key commands, such as {@code EXISTS} and {@code PTTL}
	 * @param strings string commands, such as {@code GET} and {@code SET}
	 */
	protected record Keys(RedisKeyCommands<String, String> keys, RedisStringCommands<String, String> strings) {

	}

	/**
	 * Something to run on another thread, which may throw.
	 */
	@FunctionalInterface
	interface ThrowingAction {

		void run() throws Exception;

	}

}
