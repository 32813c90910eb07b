package dev.distlock.aop;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.distlock.DistributedLock;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockContext;
import dev.distlock.LockLease;
import dev.distlock.LockLostAction;
import dev.distlock.LockMode;
import dev.distlock.test.InMemoryLockRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.aop.framework.AopContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The rules by which {@link DistributedLock} methods with {@code mode = SHARED} hold the
 * read side of their read/write lock, checked on proxies over an
 * {@link InMemoryLockRegistry}: readers share it, a writer of the same name excludes
 * them, a writer's nested read is a downgrade, a reader's nested write fails, and
 * collection keys keep their global order. {@link SharedLockInterceptorTests} checks them
 * against real Redis.
 */
@Timeout(10)
class SharedLockInterceptionRulesTests {

	private static final Duration WAIT = Duration.ofSeconds(5);

	private final InMemoryLockRegistry registry = new InMemoryLockRegistry();

	private final LockingProxies proxies = new LockingProxies(this.registry, new LostLockPolicy(LockLostAction.THROW));

	private final Catalog catalog = this.proxies.classProxy(new Catalog());

	@Test
	void readersOfOneNameRunAtTheSameTime() throws Exception {
		CountDownLatch bothReading = new CountDownLatch(2);
		CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> this.catalog.readTogether(bothReading));
		assertThat(this.catalog.readTogether(bothReading)).isTrue();
		assertThat(first).succeedsWithin(WAIT).isEqualTo(true);
	}

	@Test
	void aWriterOfTheSameNameExcludesReadersAndTheReaderSeesItsReadShareAsItsLease() {
		LockLease writer = this.registry.acquire("catalog", Duration.ZERO);
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(this.catalog::read)
			.withMessage("Read lock 'catalog' of Catalog.read() was not acquired within PT0.1S");
		writer.release();
		assertThat(this.catalog.read()).isEqualTo("catalog");
	}

	@Test
	void anExclusiveMethodOfTheSameNameIsExcludedByAReader() throws Exception {
		CountDownLatch reading = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(1);
		CompletableFuture<Boolean> reader = CompletableFuture
			.supplyAsync(() -> this.catalog.readTogether(reading, done));
		assertThat(reading.await(5, TimeUnit.SECONDS)).isTrue();
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(this.catalog::update)
			.withMessage("Lock 'catalog' of Catalog.update() was not acquired within PT0.1S");
		done.countDown();
		assertThat(reader).succeedsWithin(WAIT);
		assertThat(this.catalog.update()).isEqualTo("catalog");
	}

	@Test
	void aWriterMayReadInANestedCall() {
		assertThat(this.catalog.updateThenRead()).isEqualTo("catalog");
	}

	@Test
	void aReaderCannotWriteInANestedCall() {
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(this.catalog::readThenUpdate);
		assertThat(ListedHolds.names(this.registry)).isEmpty();
	}

	@Test
	void collectionKeyTakesEveryReadShareInSortedOrder() {
		assertThat(this.catalog.readAll(List.of("shoes", "books", "games"))).as("the innermost first")
			.containsExactly("catalog:shoes", "catalog:games", "catalog:books");
		assertThat(ListedHolds.names(this.registry)).isEmpty();
	}

	/**
	 * A catalogue read under the read side of its lock and updated under the write side.
	 */
	static class Catalog {

		@DistributedLock(name = "catalog", mode = LockMode.SHARED, waitTime = "100ms")
		public String read() {
			return LockContext.currentLease().orElseThrow().name();
		}

		@DistributedLock(name = "catalog", mode = LockMode.SHARED)
		public boolean readTogether(CountDownLatch reading) {
			reading.countDown();
			return await(reading);
		}

		@DistributedLock(name = "catalog", mode = LockMode.SHARED)
		public boolean readTogether(CountDownLatch reading, CountDownLatch done) {
			reading.countDown();
			return await(done);
		}

		@DistributedLock(name = "catalog", key = "#sections", mode = LockMode.SHARED)
		public List<String> readAll(Collection<String> sections) {
			return LockContext.leases().stream().map(LockLease::name).toList();
		}

		@DistributedLock(name = "catalog", waitTime = "100ms")
		public String update() {
			return LockContext.currentLease().orElseThrow().name();
		}

		@DistributedLock(name = "catalog")
		public String updateThenRead() {
			return self().read();
		}

		@DistributedLock(name = "catalog", mode = LockMode.SHARED)
		public String readThenUpdate() {
			return self().update();
		}

		private static boolean await(CountDownLatch latch) {
			try {
				return latch.await(5, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

		private static Catalog self() {
			return (Catalog) AopContext.currentProxy();
		}

	}

}
