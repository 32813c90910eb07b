package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.distlock.LeaseOptions;
import dev.distlock.LockName;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Locking many distinct keys leaves nothing behind in Redis: once the lease, the lock
 * delay and the fencing retention have passed, every key distlock wrote is gone, whether
 * its lock was released or its lease ran out.
 */
@Timeout(180)
class NothingLeftBehindTests {

	private static final int LOCKS = 100_000;

	private static final int THREADS = 8;

	/**
	 * Every thousandth lock is left to expire instead of being released (and reported
	 * lost).
	 */
	private static final int EXPIRING_EVERY = 1_000;

	private static final Duration LEASE = Duration.ofSeconds(1);

	private static final Duration LOCK_DELAY = Duration.ofMillis(200);

	private static final Duration RETENTION = Duration.ofSeconds(1);

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
	void aHundredThousandKeyedLocksLeaveNoKeyOnceLeaseLockDelayAndRetentionHavePassed() throws Exception {
		RedisLockRegistry registry = this.closer.add(TestLockRegistry.create(redis.server().uri(),
				RedisLockSettings.of("lock:", LEASE)
					.withCommandTimeout(Duration.ofSeconds(5))
					.withLockDelay(LOCK_DELAY)
					.withFencingRetention(RETENTION)))
			.registry();
		String memoryBefore = usedMemory();
		long startNanos = System.nanoTime();
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		this.closer.add(executor::shutdownNow);
		List<Future<?>> workers = new ArrayList<>();
		for (int worker = 0; worker < THREADS; worker++) {
			int first = worker;
			workers.add(executor.submit(() -> {
				for (int i = first; i < LOCKS; i += THREADS) {
					String name = LockName.keyed("order", "order-" + i).value();
					if (i % EXPIRING_EVERY == 0) {
						registry.tryAcquire(name, Duration.ZERO, LeaseOptions.fixed(LEASE)).orElseThrow();
					}
					else {
						registry.acquire(name, Duration.ZERO).release();
					}
				}
			}));
		}
		for (Future<?> worker : workers) {
			worker.get();
		}
		Duration locking = Duration.ofNanos(System.nanoTime() - startNanos);
		long keysAfterLocking = this.commands.dbsize();
		String memoryAfterLocking = usedMemory();
		assertThat(keysAfterLocking).as("the fencing keys of the last locks, at least").isPositive();
		long lockedAt = System.nanoTime();
		await().atMost(LEASE.plus(LOCK_DELAY).plus(RETENTION).plusSeconds(10))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> this.commands.dbsize() == 0L);
		System.out.printf(
				"[expiry] %,d locks in %d ms; %,d keys and used_memory %s after locking (%s before);"
						+ " 0 keys %d ms later, used_memory %s%n",
				LOCKS, locking.toMillis(), keysAfterLocking, memoryAfterLocking, memoryBefore,
				Duration.ofNanos(System.nanoTime() - lockedAt).toMillis(), usedMemory());
	}

	private String usedMemory() {
		return this.commands.info("memory")
			.lines()
			.filter((line) -> line.startsWith("used_memory_human:"))
			.findFirst()
			.orElseThrow()
			.substring("used_memory_human:".length());
	}

}
