package dev.distlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.DistributedLock;
import dev.distlock.LockContext;
import dev.distlock.LockIntrospector;
import dev.distlock.LockMode;
import dev.distlock.LockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Lazy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Behaviour of {@link DistributedLock} methods with {@code mode = SHARED} in a Spring
 * context against a real {@code redis-server}: readers run at once, a writer of the same
 * name excludes them (a reader finds the writer's two counters equal and unchanged for as
 * long as it reads), a writer waiting behind readers gets the lock while new readers keep
 * coming, and a reader cannot upgrade. {@link SharedLockInterceptionRulesTests} checks
 * the rules over an in-memory registry.
 */
@Timeout(60)
class SharedLockInterceptorTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = RedisInterceptionContexts.on(redis.server())
		.withBean(Catalog.class);

	@Test
	void readersRunAtOnceEachUnderItsReadShare() {
		this.contextRunner.run((context) -> {
			Catalog catalog = context.getBean(Catalog.class);
			LockIntrospector introspector = (LockIntrospector) context.getBean(LockRegistry.class);
			CountDownLatch allReading = new CountDownLatch(3);
			// Three threads of their own: the common pool may have one on two cores
			ExecutorService pool = Executors.newFixedThreadPool(3);
			try {
				List<CompletableFuture<String>> readers = new ArrayList<>();
				for (int reader = 0; reader < 3; reader++) {
					readers.add(
							CompletableFuture.supplyAsync(() -> catalog.readAlongside(allReading, introspector), pool));
				}
				assertThat(readers)
					.allSatisfy((reader) -> assertThat(reader).succeedsWithin(WAIT).isEqualTo("catalog:shared"));
			}
			finally {
				pool.shutdownNow();
			}
			assertThat(introspector.heldLocks()).isEmpty();
		});
	}

	@Test
	void writersExcludeReadersWhoSeeTheCountersUnchangedWhileTheyRead() throws Exception {
		this.contextRunner.run((context) -> {
			Catalog catalog = context.getBean(Catalog.class);
			AtomicBoolean stop = new AtomicBoolean();
			ExecutorService pool = Executors.newFixedThreadPool(6);
			try {
				List<CompletableFuture<Long>> readers = startReaders(4, catalog, stop, pool);
				List<CompletableFuture<Void>> writers = new ArrayList<>();
				for (int writer = 0; writer < 2; writer++) {
					writers.add(CompletableFuture.runAsync(() -> {
						for (int i = 0; i < 10; i++) {
							catalog.update();
						}
					}, pool));
				}
				assertThat(CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new))).succeedsWithin(WAIT);
				stop.set(true);
				assertThat(readers).allSatisfy((reader) -> assertThat(reader).succeedsWithin(WAIT));
				assertThat(readers.stream().mapToLong(CompletableFuture::join).sum()).as("reads").isPositive();
				assertThat(catalog.first()).hasValue(20);
				assertThat(catalog.second()).hasValue(20);
			}
			finally {
				pool.shutdownNow();
			}
		});
	}

	@Test
	void aWriterWaitingBehindReadersGetsTheLockWhileNewReadersKeepComing() throws Exception {
		this.contextRunner.run((context) -> {
			Catalog catalog = context.getBean(Catalog.class);
			AtomicBoolean stop = new AtomicBoolean();
			ExecutorService pool = Executors.newFixedThreadPool(4);
			try {
				List<CompletableFuture<Long>> readers = startReaders(4, catalog, stop, pool);
				catalog.awaitReadsStarted();
				assertThat(catalog.updateWaiting()).as("updated within its wait time").isEqualTo(1);
				stop.set(true);
				assertThat(readers).allSatisfy((reader) -> assertThat(reader).succeedsWithin(WAIT));
			}
			finally {
				pool.shutdownNow();
			}
		});
	}

	@Test
	void aWriterMayReadButAReaderCannotWrite() {
		this.contextRunner.run((context) -> {
			Catalog catalog = context.getBean(Catalog.class);
			assertThat(catalog.updateThenRead()).isEqualTo("catalog");
			assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(catalog::readThenUpdate);
			assertThat(((LockIntrospector) context.getBean(LockRegistry.class)).heldLocks()).isEmpty();
		});
	}

	/**
	 * Start readers that read, checking the counters, until told to stop.
	 * @return each reader's count of reads, once stopped
	 */
	private static List<CompletableFuture<Long>> startReaders(int count, Catalog catalog, AtomicBoolean stop,
			ExecutorService pool) {
		List<CompletableFuture<Long>> readers = new ArrayList<>();
		for (int reader = 0; reader < count; reader++) {
			readers.add(CompletableFuture.supplyAsync(() -> readUntil(stop, catalog), pool));
		}
		return readers;
	}

	private static long readUntil(AtomicBoolean stop, Catalog catalog) {
		long reads = 0;
		while (!stop.get()) {
			catalog.readChecked();
			reads++;
		}
		return reads;
	}

	/**
	 * Two counters that a writer moves one after the other, and readers that check them.
	 */
	static class Catalog {

		private final AtomicLong first = new AtomicLong();

		private final AtomicLong second = new AtomicLong();

		private final CountDownLatch readsStarted = new CountDownLatch(8);

		private Catalog self = this;

		AtomicLong first() {
			return this.first;
		}

		AtomicLong second() {
			return this.second;
		}

		/**
		 * Wait until readers have started eight reads.
		 */
		void awaitReadsStarted() throws InterruptedException {
			assertThat(this.readsStarted.await(10, TimeUnit.SECONDS)).isTrue();
		}

		@DistributedLock(name = "catalog", mode = LockMode.SHARED, waitTime = "10s")
		public void readChecked() {
			this.readsStarted.countDown();
			long before = this.first.get();
			assertThat(this.second.get()).as("the writer's second counter").isEqualTo(before);
			pause(5);
			assertThat(this.first.get()).as("unchanged while read").isEqualTo(before);
			assertThat(this.second.get()).as("unchanged while read").isEqualTo(before);
		}

		@DistributedLock(name = "catalog", mode = LockMode.SHARED, waitTime = "10s")
		public String readAlongside(CountDownLatch allReading, LockIntrospector introspector) {
			allReading.countDown();
			try {
				assertThat(allReading.await(10, TimeUnit.SECONDS)).as("every reader in at once").isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return ListedHolds.currentLeaseAsListed(introspector);
		}

		@DistributedLock(name = "catalog", waitTime = "10s")
		public void update() {
			this.first.incrementAndGet();
			pause(5);
			this.second.incrementAndGet();
		}

		@DistributedLock(name = "catalog", waitTime = "10s")
		public long updateWaiting() {
			return 1;
		}

		@DistributedLock(name = "catalog")
		public String updateThenRead() {
			return this.self.readName();
		}

		@DistributedLock(name = "catalog", mode = LockMode.SHARED)
		public String readName() {
			return LockContext.currentLease().orElseThrow().name();
		}

		@DistributedLock(name = "catalog", mode = LockMode.SHARED)
		public void readThenUpdate() {
			this.self.update();
		}

		@Autowired
		void setSelf(@Lazy Catalog self) {
			this.self = self;
		}

		private static void pause(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
