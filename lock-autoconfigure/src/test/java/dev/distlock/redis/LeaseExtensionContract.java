package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockRegistryContract;
import dev.distlock.testsupport.TestThread;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What {@link LockLease#extend(Duration)} does in Redis, beyond what the
 * {@link LockRegistryContract} states of every registry's extensions: the keys it
 * extends, and that it never recreates a key that is gone. Run by every class that runs
 * the {@link RedisLockRegistryContract}: on every Redis deployment and every
 * {@link TestDriver}.
 */
interface LeaseExtensionContract extends LockRegistryContract, ContractDeployment {

	String EXTENDED = "invoice";

	String EXTENDED_KEY = "lock:" + EXTENDED;

	@Test
	default void extensionThatFindsTheLockGoneReportsItLostAndDoesNotRecreateItsKey() {
		TestLockRegistry holder = testRegistry(LEASE);
		LockLease lease = holder.registry().acquire(EXTENDED, Duration.ZERO);
		keyCommands().del(EXTENDED_KEY);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(5)));
		assertThat(lease.isValid()).isFalse();
		assertThat(keyCommands().exists(EXTENDED_KEY)).isZero();
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(holder.lostEvents()).singleElement()
				.satisfies((event) -> assertThat(event.reason())
					.isEqualTo("its extension found it expired or held by another owner")));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
	}

	@Test
	default void leaseThatRanOutInRedisIsNotExtendedDuringItsLockDelay() {
		LockLease lease = registry(LEASE)
			.tryAcquire(EXTENDED, Duration.ZERO, LeaseOptions.WATCHDOG.withLockDelay(Duration.ofSeconds(10)))
			.orElseThrow();
		// As if its lease ran out in Redis: only the lock delay keeps the key
		keyCommands().pexpire(EXTENDED_KEY, 5_000);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(30)));
		assertThat(keyCommands().pttl(EXTENDED_KEY)).isLessThanOrEqualTo(5_000L);
	}

	@Test
	default void permitIsExtendedInRedis() {
		LockLease permit = registry(LEASE).semaphore("pool", 1).acquire(Duration.ZERO);
		permit.extend(Duration.ofMinutes(5));
		assertThat(keyCommands().pttl(LockKeys.helperKey("lock:pool", LockKeys.PERMITS))).isGreaterThan(240_000L);
		permit.release();
	}

	@Test
	default void holdPassedOnWithinTheInstanceCannotBeExtendedAndLeavesTheNextHolderAlone() throws Exception {
		RedisLockRegistry registry = registry(LEASE);
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
		await().atMost(WAIT).until(() -> waiter.isIn("dev.distlock.redis."));
		lock.unlock();
		assertThat(nextToken.get(10, TimeUnit.SECONDS)).isGreaterThan(passedOn.fencingToken());
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> passedOn.extend(Duration.ofSeconds(5)));
		assertThat(keyCommands().pttl(EXTENDED_KEY)).as("the next holder's lease").isGreaterThan(20_000L);
		checked.countDown();
		assertThat(done.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(keyCommands().exists(EXTENDED_KEY)).isZero();
	}

}
