package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TestThread;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of what a {@link RedisLockRegistry} tells about a lock whoever holds it
 * ({@code isLocked}, {@code remainingLease}) and of the hold count of a thread's lock,
 * written once and run by every class that runs the {@link RedisLockRegistryContract}: on
 * every Redis deployment and every {@link TestDriver}. Each registry stands for one
 * application instance.
 */
interface LockStateContract {

	/** Longer than any of these tests, so that no renewal runs while they look. */
	Duration LEASE_TIME = Duration.ofSeconds(30);

	String LOCK = "order";

	/**
	 * Connect a registry, as one application instance would, closed after the test.
	 * @param leaseTime the lease time in watchdog mode
	 * @return the registry
	 */
	RedisLockRegistry registry(Duration leaseTime);

	/**
	 * Return the URIs of the servers of the deployment that may hold a lock: its
	 * primaries.
	 * @return the URIs
	 */
	List<String> serverUris();

	/**
	 * Return what the contract closes after each test.
	 * @return the closer
	 */
	Closer closer();

	@Test
	default void lockHeldByAnotherInstanceIsLockedWithItsLeaseLeftUntilReleased() {
		LockLease held = registry(LEASE_TIME).acquire(LOCK, Duration.ZERO);
		RedisLockRegistry other = registry(LEASE_TIME);
		assertLockedForALease(other);
		held.release();
		assertFree(other);
		assertThat(other.isLocked("never-taken")).isFalse();
	}

	@Test
	default void lockHeldByItsOwnInstanceIsLockedForEveryThread() throws Exception {
		RedisLockRegistry registry = registry(LEASE_TIME);
		FencedLock lock = registry.obtain(LOCK);
		lock.lock();
		TestThread other = closer().add(TestThread.start("other-thread"));
		assertThat(other.call(() -> registry.isLocked(LOCK)).get(10, TimeUnit.SECONDS)).isTrue();
		lock.unlock();
		assertThat(registry.isLocked(LOCK)).isFalse();
	}

	@Test
	default void isLockedAndRemainingLeaseTakeOneScriptCall() {
		RedisLockRegistry registry = registry(LEASE_TIME);
		registry.acquire(LOCK, Duration.ZERO);
		assertThat(registry.isLocked(LOCK)).as("the script cached").isTrue();
		List<CommandStats> stats = serverUris().stream()
			.map((uri) -> new CommandStats(closer().add(RedisTestClient.connect(uri, Duration.ofSeconds(10))).sync()))
			.toList();
		stats.forEach(CommandStats::reset);
		assertThat(registry.isLocked(LOCK)).isTrue();
		assertThat(registry.remainingLease(LOCK)).isPresent();
		// The commands a script runs are counted too, so only the script calls are looked
		// at
		assertThat(stats.stream().mapToLong((server) -> server.calls().getOrDefault("evalsha", 0L)).sum()).isEqualTo(2);
		assertThat(stats).allSatisfy((server) -> assertThat(server.calls()).doesNotContainKey("eval"));
	}

	@Test
	default void lockKeptForItsMinimumHoldTimeAfterItsReleaseIsStillLocked() {
		registry(LEASE_TIME)
			.tryAcquire(LOCK, Duration.ZERO, LeaseOptions.WATCHDOG.withMinHoldTime(Duration.ofSeconds(10)))
			.orElseThrow()
			.release();
		RedisLockRegistry other = registry(LEASE_TIME);
		assertThat(other.tryAcquire(LOCK, Duration.ZERO)).as("taken by nobody").isEmpty();
		assertThat(other.isLocked(LOCK)).isTrue();
		assertThat(other.remainingLease(LOCK))
			.hasValueSatisfying((left) -> assertThat(left).isGreaterThan(Duration.ofSeconds(5))
				.isLessThanOrEqualTo(Duration.ofSeconds(10)));
	}

	@Test
	default void lockOfAReadWriteLockHeldOnlyByReadersIsLockedUntilTheLastReaderLeaves() {
		FencedLock reader = registry(LEASE_TIME).readWriteLock(LOCK).readLock();
		reader.lock();
		RedisLockRegistry other = registry(LEASE_TIME);
		FencedReadWriteLock otherLock = other.readWriteLock(LOCK);
		assertThat(otherLock.writeLock().tryLock()).as("a writer while a reader reads").isFalse();
		assertLockedForALease(other);
		reader.unlock();
		assertFree(other);
	}

	@Test
	default void nameOfASemaphoreIsNeverLocked() {
		LockLease permit = registry(LEASE_TIME).semaphore("pool", 1).acquire(Duration.ZERO);
		RedisLockRegistry other = registry(LEASE_TIME);
		assertThat(other.semaphore("pool", 1).tryAcquire(Duration.ZERO)).as("no permit left").isEmpty();
		assertThat(other.isLocked("pool")).isFalse();
		assertThat(other.remainingLease("pool")).isEmpty();
		permit.release();
	}

	@Test
	default void holdCountCountsTheCurrentThreadsReentriesOfEachSide() throws Exception {
		RedisLockRegistry registry = registry(LEASE_TIME);
		FencedLock lock = registry.obtain(LOCK);
		FencedLock reader = registry.readWriteLock(LOCK).readLock();
		assertThat(lock.getHoldCount()).isZero();
		lock.lock();
		assertThat(registry.obtain(LOCK).tryLock()).isTrue();
		reader.lock();
		assertThat(lock.getHoldCount()).isEqualTo(2);
		assertThat(reader.getHoldCount()).as("the read side, a downgrade").isOne();
		TestThread other = closer().add(TestThread.start("other-thread"));
		assertThat(other.call(lock::getHoldCount).get(10, TimeUnit.SECONDS)).isZero();
		reader.unlock();
		lock.unlock();
		assertThat(lock.getHoldCount()).isOne();
		lock.unlock();
		assertThat(lock.getHoldCount()).isZero();
		assertThat(reader.getHoldCount()).isZero();
	}

	/**
	 * Assert that the registry sees the lock taken, for about a lease of
	 * {@link #LEASE_TIME}.
	 */
	private static void assertLockedForALease(RedisLockRegistry registry) {
		assertThat(registry.isLocked(LOCK)).isTrue();
		assertThat(registry.remainingLease(LOCK)).hasValueSatisfying(
				(left) -> assertThat(left).isGreaterThan(LEASE_TIME.minusSeconds(10)).isLessThanOrEqualTo(LEASE_TIME));
	}

	/**
	 * Assert that the registry sees the lock free.
	 */
	private static void assertFree(RedisLockRegistry registry) {
		assertThat(registry.isLocked(LOCK)).isFalse();
		assertThat(registry.remainingLease(LOCK)).isEmpty();
	}

}
