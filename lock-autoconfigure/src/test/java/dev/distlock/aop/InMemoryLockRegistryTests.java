package dev.distlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.distlock.FencedLock;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The {@link InMemoryLockRegistry} keeps the promises of a
 * {@link dev.distlock.LockRegistry} that the interception rules rely on.
 */
@Timeout(10)
class InMemoryLockRegistryTests {

	private final InMemoryLockRegistry registry = new InMemoryLockRegistry();

	@Test
	void leaseAndThreadOwnedLockOfTheSameNameExcludeEachOther() {
		FencedLock lock = this.registry.obtain("order");
		assertThat(lock.tryLock()).isTrue();
		assertThat(this.registry.tryAcquire("order", Duration.ZERO)).isEmpty();
		lock.unlock();
		LockLease lease = this.registry.acquire("order", Duration.ZERO);
		assertThat(lock.tryLock()).isFalse();
		assertThat(this.registry.heldNames()).containsExactly("order");
		lease.release();
		assertThat(this.registry.heldNames()).isEmpty();
	}

	@Test
	void threadOwnedLockIsReentrantAndFencingTokensIncreasePerName() {
		FencedLock lock = this.registry.obtain("order");
		lock.lock();
		assertThat(this.registry.obtain("order").tryLock()).isTrue();
		assertThat(lock.fencingToken()).isOne();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		lock.unlock();
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(this.registry.acquire("order", Duration.ZERO).fencingToken()).isEqualTo(2);
		assertThat(this.registry.acquire("invoice", Duration.ZERO).fencingToken()).isOne();
	}

	@Test
	void lostHoldsFreeTheirNamesAndTheirReleaseThrowsOnce() {
		LockLease lease = this.registry.acquire("order", Duration.ZERO);
		FencedLock lock = this.registry.obtain("invoice");
		lock.lock();
		this.registry.loseAll();
		assertThat(lease.isValid()).isFalse();
		assertThat(this.registry.heldNames()).isEmpty();
		assertThat(this.registry.acquire("order", Duration.ZERO).fencingToken()).isEqualTo(2);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release)
			.withMessage("Lock 'order' was lost before its release (fencing token 1)");
		lease.release();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThat(lock.isHeldByCurrentThread()).isFalse();
	}

	@Test
	void heldLeaseExtendsWithItsFencingTokenAndALostOneThrows() {
		LockLease lease = this.registry.acquire("order", Duration.ZERO);
		lease.extend(Duration.ofSeconds(5));
		assertThat(lease.isValid()).isTrue();
		assertThat(lease.fencingToken()).isOne();
		assertThatIllegalArgumentException().isThrownBy(() -> lease.extend(Duration.ZERO))
			.withMessage("Lease time of lock 'order' must be at least 1 ms, but was given PT0S");
		this.registry.loseAll();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lease.extend(Duration.ofSeconds(5)));
	}

	@Test
	void interruptedWaitThrowsLockAcquisitionAndKeepsTheInterruptFlag() {
		this.registry.acquire("order", Duration.ZERO);
		Thread.currentThread().interrupt();
		try {
			assertThatExceptionOfType(LockAcquisitionException.class)
				.isThrownBy(() -> this.registry.obtain("order").tryLock(Duration.ofSeconds(5)))
				.withMessage("Interrupted while waiting for lock 'order'")
				.withCauseInstanceOf(InterruptedException.class);
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
	}

	@Test
	void holdsOfOneNameOnManyThreadsNeverOverlap() {
		int[] inside = new int[1];
		ExecutorService pool = Executors.newFixedThreadPool(4);
		try {
			List<CompletableFuture<Void>> threads = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				boolean owned = (i % 2 == 0);
				threads.add(CompletableFuture.runAsync(() -> {
					for (int n = 0; n < 500; n++) {
						Runnable release = acquire("counter", owned);
						inside[0]++;
						release.run();
					}
				}, pool));
			}
			CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).join();
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(inside[0]).isEqualTo(2000);
		assertThat(this.registry.acquire("counter", Duration.ZERO).fencingToken()).isEqualTo(2001);
	}

	private Runnable acquire(String name, boolean owned) {
		if (owned) {
			FencedLock lock = this.registry.obtain(name);
			lock.lock();
			return lock::unlock;
		}
		return this.registry.acquire(name, Duration.ofSeconds(5))::release;
	}

}
