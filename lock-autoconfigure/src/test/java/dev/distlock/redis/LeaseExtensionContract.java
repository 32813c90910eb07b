package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.testsupport.TestThread;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The contract of {@link LockLease#extend(Duration)} on a {@link RedisLockRegistry},
 * written once and run by every class that runs the {@link RedisLockRegistryContract}: on
 * every Redis deployment and every {@link TestDriver}. Each registry stands for one
 * application instance.
 */
interface LeaseExtensionContract extends ContractDeployment {

	/** Longer than any of these tests, so that no renewal runs unless a test asks. */
	Duration LONG_LEASE = Duration.ofSeconds(30);

	/** How long a loss may take to be reported. */
	Duration REPORTED = Duration.ofSeconds(10);

	String EXTENDED = "invoice";

	String EXTENDED_KEY = "lock:" + EXTENDED;

	@Test
	default void fixedLeaseExtendedBeforeItRunsOutStaysHeldWithItsFencingToken() throws Exception {
		TestLockRegistry holder = testRegistry(LONG_LEASE);
		RedisLockRegistry rival = registry(LONG_LEASE);
		LockLease lease = holder.registry()
			.tryAcquire(EXTENDED, Duration.ZERO, LeaseOptions.fixed(Duration.ofSeconds(1)))
			.orElseThrow();
		long token = lease.fencingToken();
		lease.extend(Duration.ofSeconds(5));
		assertThat(keyCommands().pttl(EXTENDED_KEY)).isBetween(4_000L, 5_000L);
		Thread.sleep(2_000);
		assertThat(lease.isValid()).as("two seconds into a one-second lease extended to five").isTrue();
		assertThat(lease.fencingToken()).isEqualTo(token);
		assertThat(keyCommands().pttl(EXTENDED_KEY)).isBetween(1_000L, 3_000L);
		assertThat(rival.tryAcquire(EXTENDED, Duration.ZERO)).isEmpty();
		lease.release();
		assertThat(holder.lostEvents()).isEmpty();
		assertThat(keyCommands().exists(EXTENDED_KEY)).isZero();
	}

	@Test
	default void watchdogLeaseExtendedIsRenewedWithTheLongerLease() throws Exception {
		TestLockRegistry holder = testRegistry(Duration.ofMillis(300));
		LockLease lease = holder.registry().acquire(EXTENDED, Duration.ZERO);
		lease.extend(Duration.ofSeconds(5));
		// Five renewal periods: renewed with the 300 ms lease, the key would have 3.5 s
		// left, with the 5 s lease more than 4.5 s
		Thread.sleep(1_500);
		assertThat(keyCommands().pttl(EXTENDED_KEY)).as("renewed with the longer lease").isGreaterThan(4_000L);
		assertThat(lease.isValid()).isTrue();
		lease.release();
		assertThat(holder.lostEvents()).isEmpty();
	}

	@Test
	default void extensionNeverShortensALease() {
		LockLease lease = registry(LONG_LEASE).acquire(EXTENDED, Duration.ZERO);
		lease.extend(Duration.ofSeconds(1));
		assertThat(keyCommands().pttl(EXTENDED_KEY)).isGreaterThan(20_000L);
		assertThat(lease.isValid()).isTrue();
		lease.release();
	}

	@Test
	default void leaseFoundLostCannotBeExtendedAndItsKeyIsNotRecreated() {
		TestLockRegistry holder = testRegistry(LONG_LEASE);
		LockLease lease = holder.registry().acquire(EXTENDED, Duration.ZERO);
		keyCommands().del(EXTENDED_KEY);
		holder.registry().renewLeases();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(5)))
			.withMessage("Lock '" + EXTENDED + "' (fencing token " + lease.fencingToken()
					+ ") cannot be extended: it was released, lost, or not renewed within its lease");
		assertThat(keyCommands().exists(EXTENDED_KEY)).isZero();
	}

	@Test
	default void extensionThatFindsTheLockGoneReportsItLostAndDoesNotRecreateItsKey() {
		TestLockRegistry holder = testRegistry(LONG_LEASE);
		LockLease lease = holder.registry().acquire(EXTENDED, Duration.ZERO);
		keyCommands().del(EXTENDED_KEY);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(5)));
		assertThat(lease.isValid()).isFalse();
		assertThat(keyCommands().exists(EXTENDED_KEY)).isZero();
		await().atMost(REPORTED)
			.untilAsserted(() -> assertThat(holder.lostEvents()).singleElement()
				.satisfies((event) -> assertThat(event.reason())
					.isEqualTo("its extension found it expired or held by another owner")));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
	}

	@Test
	default void fixedLeaseThatRanOutCannotBeExtended() {
		TestLockRegistry holder = testRegistry(LONG_LEASE);
		LockLease lease = holder.registry()
			.tryAcquire(EXTENDED, Duration.ZERO, LeaseOptions.fixed(Duration.ofMillis(100)))
			.orElseThrow();
		await().atMost(REPORTED)
			.until(() -> !holder.lostEvents().isEmpty() && keyCommands().exists(EXTENDED_KEY) == 0L);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(5)));
		assertThat(keyCommands().exists(EXTENDED_KEY)).isZero();
		assertThat(holder.lostEvents()).hasSize(1);
	}

	@Test
	default void leaseThatRanOutInRedisIsNotExtendedDuringItsLockDelay() {
		LockLease lease = registry(LONG_LEASE)
			.tryAcquire(EXTENDED, Duration.ZERO, LeaseOptions.WATCHDOG.withLockDelay(Duration.ofSeconds(10)))
			.orElseThrow();
		// As if its lease ran out in Redis: only the lock delay keeps the key
		keyCommands().pexpire(EXTENDED_KEY, 5_000);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(30)));
		assertThat(keyCommands().pttl(EXTENDED_KEY)).isLessThanOrEqualTo(5_000L);
	}

	@Test
	default void extensionByLessThanAMillisecondIsRejected() {
		LockLease lease = registry(LONG_LEASE).acquire(EXTENDED, Duration.ZERO);
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(Duration.ZERO))
			.withMessage("Lease time of lock '" + EXTENDED + "' must be at least 1 ms, but was given PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(Duration.ofSeconds(-1)))
			.withMessage("Lease time of lock '" + EXTENDED + "' must be at least 1 ms, but was given PT-1S");
		assertThat(lease.isValid()).isTrue();
		lease.release();
	}

	@Test
	default void readSharesAndPermitsAreExtendedLikeLocks() {
		RedisLockRegistry registry = registry(LONG_LEASE);
		LockLease permit = registry.semaphore("pool", 1).acquire(Duration.ZERO);
		permit.extend(Duration.ofMinutes(5));
		assertThat(keyCommands().pttl(LockKeys.helperKey("lock:pool", LockKeys.PERMITS))).isGreaterThan(240_000L);
		FencedLock reader = registry.readWriteLock(EXTENDED).readLock();
		reader.lock();
		reader.currentHold().extend(Duration.ofMinutes(5));
		assertThat(keyCommands().pttl(HoldKind.READ_SHARE.heldKey(new LockId(LockName.of(EXTENDED), EXTENDED_KEY))))
			.isGreaterThan(240_000L);
		assertThat(permit.isValid()).isTrue();
		assertThat(reader.currentHold().isValid()).isTrue();
		permit.release();
		reader.unlock();
	}

	@Test
	default void currentHoldOfAThreadOwnedLockIsExtendedUntilItIsUnlocked() {
		FencedLock lock = registry(LONG_LEASE).obtain(EXTENDED, LeaseOptions.fixed(Duration.ofSeconds(1)));
		lock.lock();
		LockLease hold = lock.currentHold();
		hold.extend(Duration.ofSeconds(5));
		assertThat(keyCommands().pttl(EXTENDED_KEY)).isBetween(4_000L, 5_000L);
		lock.unlock();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> hold.extend(Duration.ofSeconds(5)));
		assertThat(keyCommands().exists(EXTENDED_KEY)).isZero();
	}

	@Test
	default void holdPassedOnWithinTheInstanceCannotBeExtendedAndLeavesTheNextHolderAlone() throws Exception {
		RedisLockRegistry registry = registry(LONG_LEASE);
		FencedLock lock = registry.obtain(EXTENDED);
		lock.lock();
		LockLease passedOn = lock.currentHold();
		TestThread waiter = closer().add(TestThread.start("waiter"));
		CompletableFuture<Long> nextToken = new CompletableFuture<>();
		CountDownLatch checked = new CountDownLatch(1);
		CompletableFuture<Boolean> done = waiter.call(() -> {
			FencedLock next = registry.obtain(EXTENDED);
			next.lock();
			try {
				nextToken.complete(next.fencingToken());
				return checked.await(10, TimeUnit.SECONDS);
			}
			finally {
				next.unlock();
			}
		});
		await().atMost(REPORTED).until(() -> waiter.isIn("dev.distlock.redis."));
		lock.unlock();
		assertThat(nextToken.get(10, TimeUnit.SECONDS)).isGreaterThan(passedOn.fencingToken());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> passedOn.extend(Duration.ofSeconds(5)));
		assertThat(keyCommands().pttl(EXTENDED_KEY)).as("the next holder's lease").isGreaterThan(20_000L);
		checked.countDown();
		assertThat(done.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(keyCommands().exists(EXTENDED_KEY)).isZero();
	}

}
