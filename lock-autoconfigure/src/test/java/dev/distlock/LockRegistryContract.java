package dev.distlock;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.TestThread;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * The behavioural contract of every {@link LockRegistry}, stated on the public API alone
 * and run against each registry: the Redis registry on every deployment and driver, and
 * any other registry that stands in for it. Each registry that {@link #instance} connects
 * stands for one application instance; the contract holds across instances.
 *
 * <p>
 * An implementer provides four hooks: {@link #instance(Duration)},
 * {@link #expire(LockRegistry, String)}, {@link #awaitWaiting(TestThread)} and
 * {@link #closer()}, and closes the closer and the registries after each test. What a
 * registry keeps where (keys, queues, messages) is for the implementer's own tests.
 */
@Timeout(60)
public interface LockRegistryContract {

	/**
	 * Longer than any of these tests, so that no lease runs out unless a test says so.
	 */
	Duration LEASE = Duration.ofSeconds(30);

	/** How long anything the contract waits for may take. */
	Duration WAIT = Duration.ofSeconds(10);

	/** A lease short enough that three of them pass within a test. */
	Duration SHORT_LEASE = Duration.ofMillis(300);

	/**
	 * A lease the watchdog keeps through three of them in a test: long enough that a busy
	 * machine's stalls of the watchdog or of Redis do not outlast the two thirds of it
	 * left after a renewal.
	 */
	Duration RENEWED_LEASE = Duration.ofMillis(750);

	/**
	 * Connect a registry standing for one application instance; the implementer closes it
	 * after the test.
	 * @param leaseTime the watchdog lease
	 * @return the registry
	 */
	LockRegistry instance(Duration leaseTime);

	/**
	 * Make the lock (or read share, or permit) of the given name, held through the given
	 * registry, lost now, as if its lease ran out unnoticed, and have its holder find
	 * out: its loss actions run soon after, which the contract awaits.
	 * @param holder the registry the hold was taken through
	 * @param name the name of the lock, read/write lock or semaphore
	 */
	void expire(LockRegistry holder, String name);

	/**
	 * Wait, for a bounded time, until the given thread waits for a lock, a permit or a
	 * read share.
	 * @param thread the thread
	 */
	void awaitWaiting(TestThread thread);

	/**
	 * Return what the contract closes after each test, such as the threads it starts.
	 * @return the closer
	 */
	Closer closer();

	@Test
	default void leaseHoldsTheLockUntilReleased() {
		LockRegistry registry = instance(LEASE);
		LockRegistry rival = instance(LEASE);
		LockLease lease = registry.acquire("order", Duration.ZERO);
		assertThat(lease.isValid()).isTrue();
		assertThat(lease.name()).isEqualTo("order");
		assertThat(rival.tryAcquire("order", Duration.ZERO)).isEmpty();
		lease.release();
		assertThat(lease.isValid()).isFalse();
		assertThat(rival.tryAcquire("order", Duration.ZERO)).isPresent();
	}

	@Test
	default void acquireOfAHeldLockThrowsAfterItsWaitTime() {
		instance(LEASE).acquire("order", Duration.ZERO);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> instance(LEASE).acquire("order", Duration.ofMillis(100)))
			.withMessage("Lock 'order' was not acquired within PT0.1S");
	}

	@Test
	default void fencingTokensIncreaseAcrossInstancesAndExpiries() {
		LockRegistry first = instance(LEASE);
		LockRegistry second = instance(LEASE);
		long previous = 0;
		for (int i = 0; i < 5; i++) {
			LockRegistry registry = (i % 2 == 0) ? first : second;
			LockLease expiring = registry
				.tryAcquire("report", Duration.ofSeconds(5), LeaseOptions.fixed(Duration.ofMillis(50)))
				.orElseThrow();
			assertThat(expiring.fencingToken()).isGreaterThan(previous);
			previous = expiring.fencingToken();
		}
	}

	@Test
	default void lockIsReentrantOnTheOwningThreadAndKeepsItsFencingToken() {
		LockRegistry registry = instance(LEASE);
		LockRegistry rival = instance(LEASE);
		FencedLock lock = registry.obtain("order");
		lock.lock();
		long token = lock.fencingToken();
		FencedLock sameLock = registry.obtain("order");
		assertThat(sameLock.tryLock()).isTrue();
		assertThat(sameLock.fencingToken()).isEqualTo(token);
		assertThat(lock.getHoldCount()).isEqualTo(2);
		sameLock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(lock.getHoldCount()).isOne();
		assertThat(rival.tryAcquire("order", Duration.ZERO)).as("a rival while one hold is left").isEmpty();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(rival.tryAcquire("order", Duration.ZERO)).isPresent();
	}

	/**
	 * Handles of one name obtained twice are equal, so they work in sets and as map keys;
	 * other names, options, sides, permits or registries give other handles.
	 */
	@Test
	default void handlesObtainedTwiceWithTheSameNameAndOptionsAreEqual() {
		LockRegistry registry = instance(LEASE);
		LeaseOptions fixed = LeaseOptions.fixed(Duration.ofSeconds(5));
		assertThat(registry.obtain("order")).isEqualTo(registry.obtain("order"))
			.hasSameHashCodeAs(registry.obtain("order"))
			.isEqualTo(registry.obtain("order", LeaseOptions.WATCHDOG))
			.isEqualTo(registry.readWriteLock("order").writeLock())
			.isNotEqualTo(registry.obtain("invoice"))
			.isNotEqualTo(registry.obtain("order", fixed))
			.isNotEqualTo(registry.readWriteLock("order").readLock())
			.isNotEqualTo(instance(LEASE).obtain("order"));
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
	default void unlockByAThreadThatDoesNotHoldTheLockThrowsAndLeavesTheHolderAlone() throws Exception {
		FencedLock lock = instance(LEASE).obtain("inventory");
		assertThat(lock.tryLock()).isTrue();
		assertThat(failureOnOtherThread(lock::unlock)).isInstanceOf(IllegalMonitorStateException.class)
			.hasMessage("Lock 'inventory' is not held by thread 'other-thread'");
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(instance(LEASE).tryAcquire("inventory", Duration.ZERO)).as("a rival").isEmpty();
		lock.unlock();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock)
			.withMessage("Lock 'inventory' is not held by thread '" + Thread.currentThread().getName() + "'");
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> instance(LEASE).obtain("other").fencingToken());
	}

	@Test
	default void currentHoldOfAThreadOwnedLockCannotBeReleasedOnAnotherThreadButStillByItsOwner() throws Exception {
		LockRegistry registry = instance(LEASE);
		FencedLock lock = registry.obtain("owned");
		assertThat(lock.tryLock()).isTrue();
		LockLease hold = lock.currentHold();
		assertThat(failureOnOtherThread(hold::release)).isInstanceOf(IllegalMonitorStateException.class)
			.hasMessage("Lock 'owned' is not held by thread 'other-thread'");
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		hold.release();
		assertThat(lock.isHeldByCurrentThread()).as("released by its owner after the refusal").isFalse();
		assertThat(registry.isLocked("owned")).isFalse();
	}

	@Test
	default void leaseTakenOnOneThreadIsReleasedOnAnotherAndReleasingTwiceLeavesTheNextHolderAlone() throws Exception {
		LockLease lease = instance(LEASE).acquire("report", Duration.ZERO);
		assertThat(failureOnOtherThread(lease::release)).isNull();
		assertThat(lease.isValid()).isFalse();
		LockLease next = instance(LEASE).acquire("report", Duration.ZERO);
		lease.release();
		lease.close();
		assertThat(next.isValid()).isTrue();
		assertThat(instance(LEASE).tryAcquire("report", Duration.ZERO)).as("a rival of the next holder").isEmpty();
		next.release();
	}

	@Test
	default void waiterIsWokenByTheReleaseLongBeforeTheLeaseRunsOut() throws Exception {
		LockLease held = instance(LEASE).acquire("order", Duration.ZERO);
		LockRegistry waiting = instance(LEASE);
		TestThread waiter = thread("waiter");
		CompletableFuture<LockLease> acquired = waiter.call(() -> waiting.acquire("order", Duration.ofSeconds(20)));
		awaitWaiting(waiter);
		long releasedAt = System.nanoTime();
		held.release();
		assertThat(acquired.get(10, TimeUnit.SECONDS).fencingToken()).isGreaterThan(held.fencingToken());
		assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	default void waitersOfOtherInstancesGetTheLockInTheOrderTheyCame() throws Exception {
		LockLease held = instance(LEASE).acquire("order", Duration.ZERO);
		LockRegistry firstRegistry = instance(LEASE);
		LockRegistry secondRegistry = instance(LEASE);
		CompletableFuture<LockLease> firstWaits = waitFor("first",
				() -> firstRegistry.acquire("order", Duration.ofSeconds(20)));
		CompletableFuture<LockLease> secondWaits = waitFor("second",
				() -> secondRegistry.acquire("order", Duration.ofSeconds(20)));
		held.release();
		LockLease firstHold = firstWaits.get(10, TimeUnit.SECONDS);
		assertThat(firstHold.fencingToken()).isGreaterThan(held.fencingToken());
		assertTheSecondWaiterFollows(firstHold, secondWaits);
	}

	@Test
	default void remainingLeaseOfAFixedLeaseCountsDownToZeroAsItRunsOut() {
		LockLease watchdog = instance(LEASE).acquire("report", Duration.ZERO);
		assertThat(watchdog.remainingLease()).isPositive().isLessThanOrEqualTo(LEASE);
		LockLease fixed = instance(LEASE).tryAcquire("order", Duration.ZERO, LeaseOptions.fixed(SHORT_LEASE))
			.orElseThrow();
		assertThat(fixed.remainingLease()).isPositive().isLessThanOrEqualTo(SHORT_LEASE);
		await().atMost(WAIT).until(() -> fixed.remainingLease().isZero());
		assertThat(fixed.isValid()).isFalse();
		assertThat(watchdog.remainingLease()).isPositive();
	}

	@Test
	default void waitTimeTooLongToCountInNanosecondsWaitsWithoutEnd() throws Exception {
		LockLease held = instance(LEASE).acquire("order", Duration.ZERO);
		LockRegistry waiting = instance(LEASE);
		CompletableFuture<LockLease> acquired = waitFor("waiter",
				() -> waiting.acquire("order", ChronoUnit.FOREVER.getDuration()));
		held.release();
		assertThat(acquired.get(10, TimeUnit.SECONDS).fencingToken()).isGreaterThan(held.fencingToken());
	}

	@Test
	default void releaseKeptForAMinimumHoldTimeWakesTheFirstWaiterWhenTheHoldTimeEnds() throws Exception {
		LockLease held = instance(LEASE)
			.tryAcquire("order", Duration.ZERO, LeaseOptions.WATCHDOG.withMinHoldTime(Duration.ofMillis(500)))
			.orElseThrow();
		LockRegistry waiting = instance(LEASE);
		CompletableFuture<LockLease> acquired = waitFor("waiter",
				() -> waiting.acquire("order", Duration.ofSeconds(20)));
		held.release();
		// Well before the 30 s lease the waiter saw when it last tried
		assertThat(acquired.get(10, TimeUnit.SECONDS).fencingToken()).isGreaterThan(held.fencingToken());
	}

	@Test
	default void minHoldTimeKeepsTheLockAfterAnEarlyRelease() {
		instance(LEASE)
			.tryAcquire("nightly", Duration.ZERO, LeaseOptions.WATCHDOG.withMinHoldTime(Duration.ofSeconds(10)))
			.orElseThrow()
			.release();
		LockRegistry other = instance(LEASE);
		assertThat(other.tryAcquire("nightly", Duration.ZERO)).as("taken by nobody").isEmpty();
		assertThat(other.isLocked("nightly")).isTrue();
		assertThat(other.remainingLease("nightly"))
			.hasValueSatisfying((left) -> assertThat(left).isGreaterThan(Duration.ofSeconds(5))
				.isLessThanOrEqualTo(Duration.ofSeconds(10)));
	}

	@Test
	default void watchdogKeepsALockThroughThreeLeases() throws Exception {
		LockRegistry rival = instance(RENEWED_LEASE);
		LockLease lease = instance(RENEWED_LEASE).acquire("job", Duration.ZERO);
		assertKeptThroughThreeLeases(lease, RENEWED_LEASE, () -> rival.tryAcquire("job", Duration.ZERO).isPresent());
	}

	@Test
	default void fixedLeaseIsReportedLostWhenItRunsOutAndItsReleaseThrows() {
		LockLease lease = instance(LEASE).tryAcquire("job", Duration.ZERO, LeaseOptions.fixed(Duration.ofMillis(100)))
			.orElseThrow();
		List<LockLostException> losses = lossesOf(lease);
		await().atMost(WAIT).until(() -> !losses.isEmpty());
		assertThat(lease.isValid()).isFalse();
		assertThat(losses).singleElement()
			.satisfies((lost) -> assertThat(lost).hasMessageContaining("fixed lease of 100 ms ran out"));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release)
			.withMessage("Lock 'job' was lost before its release (fencing token " + lease.fencingToken() + ")");
		assertThat(instance(LEASE).isLocked("job")).isFalse();
		assertThat(losses).hasSize(1);
	}

	@Test
	default void expiredLeaseIsReportedLostAndItsReleaseThrows() {
		LockRegistry holder = instance(LEASE);
		LockLease lease = holder.acquire("job", Duration.ZERO);
		List<LockLostException> losses = expireAndAwaitLoss(holder, lease);
		assertThat(lease.isValid()).isFalse();
		assertLostWhileHeld(losses, "job", lease.fencingToken());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release)
			.withMessage("Lock 'job' was lost before its release (fencing token " + lease.fencingToken() + ")");
		assertThat(losses).hasSize(1);
	}

	@Test
	default void expiredLockIsNeitherHeldNorCountedNorReenteredAndGoesToTheNextHolder() {
		LockRegistry holder = instance(LEASE);
		FencedLock lock = holder.obtain("job");
		lock.lock();
		long token = lock.fencingToken();
		List<LockLostException> losses = expireAndAwaitLoss(holder, lock.currentHold());
		assertLostWhileHeld(losses, "job", token);
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lock.getHoldCount()).isZero();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::lock)
			.withMessageStartingWith("Lock 'job' (fencing token " + token + ") was lost while thread '"
					+ Thread.currentThread().getName() + "' held it: it cannot be re-entered");
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::tryLock);
		LockLease next = instance(LEASE).acquire("job", Duration.ZERO);
		assertThat(next.fencingToken()).isGreaterThan(token);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		next.release();
		assertThat(lock.tryLock()).as("taken again once unlocked").isTrue();
		assertThat(lock.fencingToken()).isGreaterThan(next.fencingToken());
		lock.unlock();
	}

	@Test
	default void interruptingAThreadWaitingForALeaseThrowsAndKeepsItsInterruptFlag() throws Exception {
		LockRegistry registry = instance(LEASE);
		assertInterruptible(() -> registry.acquire("interrupted", Duration.ofSeconds(30)));
	}

	@Test
	default void interruptingAThreadWaitingInTryLockThrowsAndKeepsItsInterruptFlag() throws Exception {
		LockRegistry registry = instance(LEASE);
		assertInterruptible(() -> registry.obtain("interrupted").tryLock(Duration.ofSeconds(30)));
	}

	@Test
	default void emptyNamesAndNegativeWaitTimesAreRejected() {
		LockRegistry registry = instance(LEASE);
		assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(""))
			.withMessage("'name' must not be empty");
		assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire("order", Duration.ofSeconds(-1)))
			.withMessage("Wait time of lock 'order' must not be negative");
	}

	@Test
	default void semaphoreAdmitsAtMostItsPermitsAcrossInstances() {
		DistributedSemaphore pool = instance(LEASE).semaphore("pool", 2);
		DistributedSemaphore rivalPool = instance(LEASE).semaphore("pool", 2);
		LockLease first = pool.acquire(Duration.ZERO);
		LockLease second = rivalPool.acquire(Duration.ZERO);
		assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(rivalPool.tryAcquire(Duration.ZERO)).isEmpty();
		assertThat(instance(LEASE).semaphore("pool", 2).tryAcquire(Duration.ZERO)).isEmpty();
		first.release();
		LockLease third = rivalPool.acquire(Duration.ZERO);
		assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
		second.release();
		third.release();
	}

	@Test
	default void semaphoreWaitersAreWokenByAReleaseAndAdmittedInTheOrderTheyCame() throws Exception {
		LockLease held = instance(LEASE).semaphore("pool", 1).acquire(Duration.ZERO);
		DistributedSemaphore firstPool = instance(LEASE).semaphore("pool", 1);
		DistributedSemaphore secondPool = instance(LEASE).semaphore("pool", 1);
		CompletableFuture<LockLease> firstWaits = waitFor("first", () -> firstPool.acquire(Duration.ofSeconds(20)));
		CompletableFuture<LockLease> secondWaits = waitFor("second", () -> secondPool.acquire(Duration.ofSeconds(20)));
		long releasedAt = System.nanoTime();
		held.release();
		LockLease firstHold = firstWaits.get(10, TimeUnit.SECONDS);
		// A waiter that re-checks now and then would have come later
		assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).as("woken by the release, not polling")
			.isLessThan(Duration.ofMillis(500));
		assertThat(firstHold.fencingToken()).isGreaterThan(held.fencingToken());
		assertTheSecondWaiterFollows(firstHold, secondWaits);
	}

	@Test
	default void permitTakenOnOneThreadIsReleasedOnAnother() throws Exception {
		DistributedSemaphore pool = instance(LEASE).semaphore("pool", 1);
		LockLease permit = pool.acquire(Duration.ZERO);
		assertThat(failureOnOtherThread(permit::release)).isNull();
		assertThat(permit.isValid()).isFalse();
		LockLease next = instance(LEASE).semaphore("pool", 1).acquire(Duration.ZERO);
		permit.release();
		assertThat(next.isValid()).isTrue();
		assertThat(pool.tryAcquire(Duration.ZERO)).as("a permit while the next holder has it").isEmpty();
		next.release();
	}

	@Test
	default void eachAttemptCountsAgainstThePermitsItsSemaphorePasses() {
		DistributedSemaphore one = instance(LEASE).semaphore("pool", 1);
		DistributedSemaphore two = instance(LEASE).semaphore("pool", 2);
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
	default void watchdogKeepsAPermitThroughThreeLeases() throws Exception {
		DistributedSemaphore rivalPool = instance(RENEWED_LEASE).semaphore("pool", 1);
		LockLease permit = instance(RENEWED_LEASE).semaphore("pool", 1).acquire(Duration.ZERO);
		assertKeptThroughThreeLeases(permit, RENEWED_LEASE, () -> rivalPool.tryAcquire(Duration.ZERO).isPresent());
	}

	@Test
	default void expiredPermitIsReportedLostAndItsReleaseThrows() {
		LockRegistry holder = instance(LEASE);
		LockLease permit = holder.semaphore("pool", 1).acquire(Duration.ZERO);
		List<LockLostException> losses = expireAndAwaitLoss(holder, permit);
		assertThat(permit.isValid()).isFalse();
		assertLostWhileHeld(losses, "pool", permit.fencingToken());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(permit::release)
			.withMessage("Lock 'pool' was lost before its release (fencing token " + permit.fencingToken() + ")");
		assertThat(instance(LEASE).semaphore("pool", 1).tryAcquire(Duration.ZERO)).as("the permit, free").isPresent();
		assertThat(losses).hasSize(1);
	}

	@Test
	default void semaphoresNeedAtLeastOnePermitAndRejectNegativeWaitTimes() {
		LockRegistry registry = instance(LEASE);
		assertThatIllegalArgumentException().isThrownBy(() -> registry.semaphore("pool", 0))
			.withMessage("Semaphore 'pool' must have at least 1 permit, but was given 0");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> registry.semaphore("pool", 1).tryAcquire(Duration.ofSeconds(-1)))
			.withMessage("Wait time of 'pool' must not be negative");
	}

	@Test
	default void readersShareTheLockWhileAWriterExcludesReadersAndWriters() {
		FencedLock firstReader = instance(LEASE).readWriteLock("catalogue").readLock();
		LockRegistry secondRegistry = instance(LEASE);
		FencedLock secondReader = secondRegistry.readWriteLock("catalogue").readLock();
		LockRegistry writers = instance(LEASE);
		FencedLock writer = writers.readWriteLock("catalogue").writeLock();
		assertThat(firstReader.tryLock()).isTrue();
		assertThat(secondReader.tryLock()).as("a second reader").isTrue();
		assertThat(writer.tryLock()).as("a writer while readers read").isFalse();
		assertThat(writers.obtain("catalogue").tryLock()).as("the lock of the same name while readers read").isFalse();
		long readToken = Math.max(firstReader.fencingToken(), secondReader.fencingToken());
		firstReader.unlock();
		assertThat(writer.tryLock()).as("a writer while a reader reads").isFalse();
		secondReader.unlock();
		assertThat(writer.tryLock()).isTrue();
		assertThat(writer.fencingToken()).isGreaterThan(readToken);
		assertThat(firstReader.tryLock()).as("a reader while the writer writes").isFalse();
		assertThat(secondRegistry.obtain("catalogue").tryLock()).as("a second writer").isFalse();
		writer.unlock();
	}

	@Test
	default void waitingWriterKeepsLaterReadersOutAndIsWokenWhenTheEarlierReaderReleases() throws Exception {
		FencedLock earlyReader = instance(LEASE).readWriteLock("catalogue").readLock();
		assertThat(earlyReader.tryLock()).isTrue();
		long readToken = earlyReader.fencingToken();
		FencedLock writer = instance(LEASE).readWriteLock("catalogue").writeLock();
		CompletableFuture<Long> written = waitFor("writer", () -> holdAndRelease(writer));
		FencedLock lateReader = instance(LEASE).readWriteLock("catalogue").readLock();
		assertThat(lateReader.tryLock(Duration.ofMillis(200))).as("a reader behind the waiting writer").isFalse();
		CompletableFuture<Long> read = waitFor("late-reader", () -> holdAndRelease(lateReader));
		earlyReader.unlock();
		long writeToken = written.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		assertThat(writeToken).isGreaterThan(readToken);
		assertThat(read.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(writeToken);
	}

	@Test
	default void writeHolderTakesTheReadLockAndNoWriterGetsTheLockWhileItReads() throws Exception {
		LockRegistry registry = instance(LEASE);
		FencedReadWriteLock lock = registry.readWriteLock("catalogue");
		lock.writeLock().lock();
		long writeToken = lock.writeLock().fencingToken();
		CompletableFuture<Long> written = waitFor("next-writer",
				() -> holdAndRelease(registry.readWriteLock("catalogue").writeLock()));
		assertThat(lock.readLock().tryLock()).as("downgrade").isTrue();
		assertThat(lock.readLock().fencingToken()).isGreaterThan(writeToken);
		lock.writeLock().unlock();
		assertThat(registry.readWriteLock("catalogue").writeLock().isHeldByCurrentThread()).isFalse();
		assertThat(instance(LEASE).readWriteLock("catalogue").writeLock().tryLock()).as("another writer").isFalse();
		assertThat(written).as("a writer of the same instance").isNotDone();
		lock.readLock().unlock();
		assertThat(written.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(writeToken);
	}

	@Test
	default void threadHoldingOnlyTheReadLockCannotTakeTheWriteLock() {
		LockRegistry registry = instance(LEASE);
		FencedReadWriteLock lock = registry.readWriteLock("catalogue");
		lock.readLock().lock();
		String message = "Thread '" + Thread.currentThread().getName()
				+ "' holds the read lock of 'catalogue' and cannot take its write lock, which would wait for its own "
				+ "read share: a read lock cannot be upgraded; release it first";
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock.writeLock()::lock)
			.withMessage(message);
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock.writeLock()::tryLock)
			.withMessage(message);
		assertThatExceptionOfType(IllegalMonitorStateException.class)
			.isThrownBy(() -> registry.obtain("catalogue").tryLock(Duration.ofSeconds(5)))
			.withMessage(message);
		assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
		lock.readLock().unlock();
		assertThat(lock.writeLock().tryLock()).isTrue();
		assertThat(lock.readLock().tryLock()).isTrue();
		assertThat(lock.writeLock().tryLock()).as("a reentry of the write lock it holds").isTrue();
		lock.writeLock().unlock();
		lock.writeLock().unlock();
		lock.readLock().unlock();
		assertThat(registry.isLocked("catalogue")).isFalse();
	}

	@Test
	default void readLockIsReentrantOnTheOwningThread() throws Exception {
		FencedLock reader = instance(LEASE).readWriteLock("catalogue").readLock();
		reader.lock();
		long token = reader.fencingToken();
		reader.lock();
		assertThat(reader.tryLock()).isTrue();
		assertThat(reader.fencingToken()).isEqualTo(token);
		assertThat(reader.currentHold().fencingToken()).isEqualTo(token);
		assertThat(reader.getHoldCount()).isEqualTo(3);
		reader.unlock();
		reader.unlock();
		assertThat(reader.isHeldByCurrentThread()).isTrue();
		assertThat(thread("other-thread").call(reader::isHeldByCurrentThread).get(10, TimeUnit.SECONDS)).isFalse();
		reader.unlock();
		assertThat(reader.isHeldByCurrentThread()).isFalse();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(reader::unlock)
			.withMessage("Read lock 'catalogue' is not held by thread '" + Thread.currentThread().getName() + "'");
	}

	@Test
	default void watchdogKeepsAReadShareThroughThreeLeases() throws Exception {
		FencedLock rivalWriter = instance(RENEWED_LEASE).readWriteLock("catalogue").writeLock();
		FencedLock reader = instance(RENEWED_LEASE).readWriteLock("catalogue").readLock();
		reader.lock();
		assertKeptThroughThreeLeases(reader.currentHold(), RENEWED_LEASE, rivalWriter::tryLock);
	}

	@Test
	default void expiredReadShareIsReportedLostAndItsUnlockThrows() {
		LockRegistry holder = instance(LEASE);
		FencedLock reader = holder.readWriteLock("catalogue").readLock();
		reader.lock();
		long token = reader.fencingToken();
		List<LockLostException> losses = expireAndAwaitLoss(holder, reader.currentHold());
		assertThat(reader.currentHold().isValid()).isFalse();
		assertLostWhileHeld(losses, "catalogue", token);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(reader::unlock)
			.withMessage("Lock 'catalogue' was lost before its release (fencing token " + token + ")");
		assertThat(reader.isHeldByCurrentThread()).isFalse();
		assertThat(instance(LEASE).readWriteLock("catalogue").writeLock().tryLock()).as("a writer").isTrue();
		assertThat(losses).hasSize(1);
	}

	@Test
	default void lockHeldByAnotherInstanceIsLockedWithItsLeaseLeftUntilReleased() {
		LockLease held = instance(LEASE).acquire("order", Duration.ZERO);
		LockRegistry other = instance(LEASE);
		assertLockedForALease(other, "order");
		held.release();
		assertFree(other, "order");
		assertThat(other.isLocked("never-taken")).isFalse();
	}

	@Test
	default void lockHeldByItsOwnInstanceIsLockedForEveryThread() throws Exception {
		LockRegistry registry = instance(LEASE);
		FencedLock lock = registry.obtain("order");
		lock.lock();
		assertThat(thread("other-thread").call(() -> registry.isLocked("order")).get(10, TimeUnit.SECONDS)).isTrue();
		lock.unlock();
		assertThat(registry.isLocked("order")).isFalse();
	}

	@Test
	default void lockOfAReadWriteLockHeldOnlyByReadersIsLockedUntilTheLastReaderLeaves() {
		FencedLock reader = instance(LEASE).readWriteLock("order").readLock();
		reader.lock();
		LockRegistry other = instance(LEASE);
		assertThat(other.readWriteLock("order").writeLock().tryLock()).as("a writer while a reader reads").isFalse();
		assertLockedForALease(other, "order");
		reader.unlock();
		assertFree(other, "order");
	}

	@Test
	default void nameOfASemaphoreIsNeverLocked() {
		LockLease permit = instance(LEASE).semaphore("pool", 1).acquire(Duration.ZERO);
		LockRegistry other = instance(LEASE);
		assertThat(other.semaphore("pool", 1).tryAcquire(Duration.ZERO)).as("no permit left").isEmpty();
		assertFree(other, "pool");
		permit.release();
	}

	@Test
	default void holdCountCountsTheCurrentThreadsReentriesOfEachSide() throws Exception {
		LockRegistry registry = instance(LEASE);
		FencedLock lock = registry.obtain("order");
		FencedLock reader = registry.readWriteLock("order").readLock();
		assertThat(lock.getHoldCount()).isZero();
		lock.lock();
		assertThat(registry.obtain("order").tryLock()).isTrue();
		reader.lock();
		assertThat(lock.getHoldCount()).isEqualTo(2);
		assertThat(reader.getHoldCount()).as("the read side, a downgrade").isOne();
		assertThat(thread("other-thread").call(lock::getHoldCount).get(10, TimeUnit.SECONDS)).isZero();
		reader.unlock();
		lock.unlock();
		assertThat(lock.getHoldCount()).isOne();
		lock.unlock();
		assertThat(lock.getHoldCount()).isZero();
		assertThat(reader.getHoldCount()).isZero();
	}

	@Test
	default void fixedLeaseExtendedBeforeItRunsOutStaysHeldWithItsFencingToken() throws Exception {
		LockRegistry holder = instance(LEASE);
		LockRegistry rival = instance(LEASE);
		LockLease lease = holder.tryAcquire("invoice", Duration.ZERO, LeaseOptions.fixed(Duration.ofMillis(500)))
			.orElseThrow();
		List<LockLostException> losses = lossesOf(lease);
		long token = lease.fencingToken();
		lease.extend(Duration.ofSeconds(3));
		assertThat(rival.remainingLease("invoice"))
			.hasValueSatisfying((left) -> assertThat(left).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(3)));
		Thread.sleep(1_000);
		assertThat(lease.isValid()).as("a second into a half-second lease extended to three").isTrue();
		assertThat(lease.fencingToken()).isEqualTo(token);
		assertThat(rival.remainingLease("invoice"))
			.hasValueSatisfying((left) -> assertThat(left).isBetween(Duration.ofMillis(500), Duration.ofSeconds(2)));
		assertThat(rival.tryAcquire("invoice", Duration.ZERO)).isEmpty();
		lease.release();
		assertThat(losses).isEmpty();
		assertThat(rival.isLocked("invoice")).isFalse();
	}

	@Test
	default void watchdogLeaseExtendedIsRenewedWithTheLongerLease() throws Exception {
		LockRegistry holder = instance(SHORT_LEASE);
		LockLease lease = holder.acquire("invoice", Duration.ZERO);
		List<LockLostException> losses = lossesOf(lease);
		lease.extend(Duration.ofSeconds(5));
		// Four renewal periods and more: renewed with the short lease,
		// the lock would have less than 3.8 s left,
		// with the extended lease more than 4.5 s
		Thread.sleep(1_200);
		assertThat(holder.remainingLease("invoice")).as("renewed with the longer lease")
			.hasValueSatisfying((left) -> assertThat(left).isGreaterThan(Duration.ofSeconds(4)));
		assertThat(lease.isValid()).isTrue();
		lease.release();
		assertThat(losses).isEmpty();
	}

	@Test
	default void extensionNeverShortensALease() {
		LockRegistry registry = instance(LEASE);
		LockLease lease = registry.acquire("invoice", Duration.ZERO);
		lease.extend(Duration.ofSeconds(1));
		assertThat(registry.remainingLease("invoice"))
			.hasValueSatisfying((left) -> assertThat(left).isGreaterThan(Duration.ofSeconds(20)));
		assertThat(lease.isValid()).isTrue();
		lease.release();
	}

	@Test
	default void expiredLeaseCannotBeExtendedAndStaysFree() {
		LockRegistry holder = instance(LEASE);
		LockLease lease = holder.acquire("invoice", Duration.ZERO);
		expireAndAwaitLoss(holder, lease);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(5)))
			.withMessage("Lock 'invoice' (fencing token " + lease.fencingToken()
					+ ") cannot be extended: it was released, lost, or not renewed within its lease");
		assertThat(holder.isLocked("invoice")).isFalse();
	}

	@Test
	default void fixedLeaseThatRanOutCannotBeExtended() {
		LockRegistry holder = instance(LEASE);
		LockLease lease = holder.tryAcquire("invoice", Duration.ZERO, LeaseOptions.fixed(Duration.ofMillis(100)))
			.orElseThrow();
		List<LockLostException> losses = lossesOf(lease);
		await().atMost(WAIT).until(() -> !losses.isEmpty());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(5)));
		// Redis counts the lease from when the acquisition arrived, a little after the
		// holder counts it from, so its key may outlive the loss by that much, but not by
		// the extension's 5 s
		await().atMost(Duration.ofSeconds(1)).until(() -> !holder.isLocked("invoice"));
		assertThat(losses).hasSize(1);
	}

	@Test
	default void extensionByLessThanAMillisecondIsRejected() {
		LockLease lease = instance(LEASE).acquire("invoice", Duration.ZERO);
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(Duration.ZERO))
			.withMessage("Lease time of lock 'invoice' must be at least 1 ms, but was given PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(Duration.ofSeconds(-1)))
			.withMessage("Lease time of lock 'invoice' must be at least 1 ms, but was given PT-1S");
		assertThat(lease.isValid()).isTrue();
		lease.release();
	}

	@Test
	default void readSharesAndPermitsAreExtendedLikeLocks() {
		LockRegistry registry = instance(LEASE);
		LockLease permit = registry.semaphore("pool", 1).acquire(Duration.ZERO);
		permit.extend(Duration.ofMinutes(5));
		FencedLock reader = registry.readWriteLock("invoice").readLock();
		reader.lock();
		reader.currentHold().extend(Duration.ofMinutes(5));
		assertThat(registry.remainingLease("invoice"))
			.hasValueSatisfying((left) -> assertThat(left).isGreaterThan(Duration.ofMinutes(4)));
		assertThat(permit.isValid()).isTrue();
		assertThat(reader.currentHold().isValid()).isTrue();
		permit.release();
		reader.unlock();
	}

	@Test
	default void currentHoldOfAThreadOwnedLockIsExtendedUntilItIsUnlocked() {
		LockRegistry registry = instance(LEASE);
		FencedLock lock = registry.obtain("invoice", LeaseOptions.fixed(Duration.ofSeconds(1)));
		lock.lock();
		LockLease hold = lock.currentHold();
		hold.extend(Duration.ofSeconds(5));
		assertThat(registry.remainingLease("invoice"))
			.hasValueSatisfying((left) -> assertThat(left).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(5)));
		lock.unlock();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> hold.extend(Duration.ofSeconds(5)));
		assertThat(registry.isLocked("invoice")).isFalse();
	}

	@Test
	default void leadershipPassesToTheStandbyWhenTheLeaderYieldsOrStops() throws Exception {
		Leadership first = instance(LEASE).leadership("scheduler");
		Leadership second = instance(LEASE).leadership("scheduler");
		first.start();
		assertThat(first.awaitDecision(WAIT)).as("the first candidate leads").isTrue();
		long firstTerm = first.fencingToken().orElseThrow();
		second.start();
		assertThat(second.awaitDecision(WAIT)).as("the second candidate stands by").isFalse();
		// The leader campaigns again once it yielded: it may take the term back before
		// the
		// standby waits for it, and then yields it once more
		await().atMost(WAIT).until(() -> {
			first.yieldLeadership();
			return second.isLeader();
		});
		assertThat(first.isLeader()).isFalse();
		long secondTerm = second.fencingToken().orElseThrow();
		assertThat(secondTerm).isGreaterThan(firstTerm);
		second.stop();
		await().atMost(WAIT).until(first::isLeader);
		assertThat(first.fencingToken().orElseThrow()).isGreaterThan(secondTerm);
		first.stop();
	}

	@Test
	default void leadershipOfANameIsOneObjectListedWhileItCampaigns() {
		LockRegistry registry = instance(LEASE);
		Leadership leadership = registry.leadership("scheduler");
		assertThat(registry.leadership("scheduler")).isSameAs(leadership);
		LockIntrospector introspector = (LockIntrospector) registry;
		assertThat(introspector.leaderships()).isEmpty();
		leadership.start();
		assertThat(introspector.leaderships()).containsExactly(leadership);
		leadership.stop();
		assertThat(introspector.leaderships()).isEmpty();
	}

	/**
	 * Start a thread that calls the given task, which waits for a lock, and return once
	 * it waits.
	 */
	private <T> CompletableFuture<T> waitFor(String threadName, Callable<T> waitingTask) {
		TestThread waiter = thread(threadName);
		CompletableFuture<T> result = waiter.call(waitingTask);
		awaitWaiting(waiter);
		return result;
	}

	private TestThread thread(String name) {
		return closer().add(TestThread.start(name));
	}

	/**
	 * Take a lock within {@link #WAIT} and more, release it, and return its fencing
	 * token.
	 */
	private static long holdAndRelease(FencedLock lock) {
		assertThat(lock.tryLock(WAIT.multipliedBy(2))).as("%s taken", lock).isTrue();
		try {
			return lock.fencingToken();
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * Return the losses reported to the loss actions of the given hold from now on.
	 */
	private static List<LockLostException> lossesOf(LockLease hold) {
		List<LockLostException> losses = new CopyOnWriteArrayList<>();
		hold.onLoss(losses::add);
		return losses;
	}

	/**
	 * {@link #expire} the given hold and wait until its loss actions run.
	 * @return the losses reported to the hold's loss actions
	 */
	private List<LockLostException> expireAndAwaitLoss(LockRegistry holder, LockLease hold) {
		List<LockLostException> losses = lossesOf(hold);
		expire(holder, hold.name());
		await().atMost(WAIT).until(() -> !losses.isEmpty());
		return losses;
	}

	/**
	 * Assert that a hold's loss actions were told once, naming the lock and its fencing
	 * token.
	 */
	private static void assertLostWhileHeld(List<LockLostException> losses, String name, long fencingToken) {
		assertThat(losses).singleElement().satisfies((lost) -> {
			assertThat(lost.getLockName()).isEqualTo(name);
			assertThat(lost.getFencingToken()).isEqualTo(fencingToken);
			assertThat(lost).hasMessageStartingWith(
					"Lock '" + name + "' was lost while held (fencing token " + fencingToken + "): ");
		});
	}

	/**
	 * Assert that a rival is refused for three of the holder's leases, and that the hold
	 * is valid then, released without a loss.
	 */
	private static void assertKeptThroughThreeLeases(LockLease held, Duration lease, BooleanSupplier rivalGetsIt)
			throws InterruptedException {
		List<LockLostException> losses = lossesOf(held);
		long end = System.nanoTime() + lease.multipliedBy(3).toNanos();
		while (System.nanoTime() < end) {
			assertThat(rivalGetsIt.getAsBoolean()).as("a rival gets it").isFalse();
			Thread.sleep(50);
		}
		assertThat(held.isValid()).isTrue();
		held.release();
		assertThat(losses).isEmpty();
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
		LockLease held = instance(LEASE).acquire("interrupted", Duration.ZERO);
		TestThread waiter = thread("waiter");
		CompletableFuture<Boolean> flagKept = waiter.call(() -> {
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(waitForTheLock::run)
				.withMessage("Interrupted while waiting for lock 'interrupted'")
				.withCauseInstanceOf(InterruptedException.class);
			return Thread.interrupted();
		});
		awaitWaiting(waiter);
		waiter.interrupt();
		assertThat(flagKept.get(5, TimeUnit.SECONDS)).as("interrupt flag kept").isTrue();
		assertThat(held.isValid()).isTrue();
		held.release();
	}

	private Throwable failureOnOtherThread(ThrowingCallable action) throws Exception {
		return thread("other-thread").call(() -> catchThrowable(action)).get(10, TimeUnit.SECONDS);
	}

	/**
	 * Assert that the registry sees the lock taken, for about a lease of {@link #LEASE}.
	 */
	private static void assertLockedForALease(LockRegistry registry, String name) {
		assertThat(registry.isLocked(name)).isTrue();
		assertThat(registry.remainingLease(name)).hasValueSatisfying(
				(left) -> assertThat(left).isGreaterThan(LEASE.minusSeconds(10)).isLessThanOrEqualTo(LEASE));
	}

	/**
	 * Assert that the registry sees the lock free.
	 */
	private static void assertFree(LockRegistry registry, String name) {
		assertThat(registry.isLocked(name)).isFalse();
		assertThat(registry.remainingLease(name)).isEmpty();
	}

}
