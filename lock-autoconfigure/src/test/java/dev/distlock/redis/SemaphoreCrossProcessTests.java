package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.distlock.DistributedSemaphore;
import dev.distlock.LockLease;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.RivalJvm;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.distlock.redis.CrossProcessLockTests.RIVAL_REPLY;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A semaphore across processes: rival JVMs ({@link LockWorkerMain}) on every
 * {@link TestDriver} that take and release permits as fast as they can, never more
 * holders at once than the permits, and a holder killed with {@code SIGKILL} whose permit
 * comes back once its lease ran out, and not before.
 */
@Timeout(120)
class SemaphoreCrossProcessTests {

	private static final int PERMITS = 2;

	private static final int THREADS = 2;

	private static final int ITERATIONS = 25;

	/** The killed holder's lease: renewed every second, so two are left at the least. */
	private static final Duration LEASE = Duration.ofSeconds(3);

	/**
	 * Slack for scheduling on a busy machine, added to every bound that follows a lease.
	 */
	private static final Duration MARGIN = Duration.ofSeconds(3);

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
	void atNoInstantDoMoreHoldersThanThePermitsHoldOneAcrossThreeJvms() throws Exception {
		List<RivalJvm> rivals = new ArrayList<>();
		for (TestDriver driver : TestDriver.values()) {
			rivals.add(startRival("permits", driver, "pool", PERMITS, THREADS, ITERATIONS));
		}
		rivals.forEach((rival) -> rival.awaitLine("READY", RIVAL_REPLY));
		rivals.forEach((rival) -> rival.send("go"));
		List<HoldIntervals.Interval> intervals = new ArrayList<>();
		for (RivalJvm rival : rivals) {
			assertThat(rival.awaitExit(RIVAL_REPLY)).isZero();
			rival.lines()
				.stream()
				.filter((line) -> line.startsWith(HoldIntervals.PREFIX))
				.map(HoldIntervals::parse)
				.forEach(intervals::add);
		}
		assertThat(intervals).hasSize(TestDriver.values().length * THREADS * ITERATIONS);
		assertThat(intervals.stream().map(HoldIntervals.Interval::fencingToken)).doesNotHaveDuplicates();
		assertThat(HoldIntervals.mostAtOnce(intervals)).as("holders at once").isEqualTo(PERMITS);
		assertThat(this.commands.exists(helperKey(LockKeys.PERMITS), helperKey(LockKeys.QUEUE),
				helperKey(LockKeys.WAITERS)))
			.isZero();
	}

	@Test
	void permitOfAKilledHolderComesBackAfterItsLeaseAndNotBefore() {
		DistributedSemaphore pool = registry().semaphore("pool", 1);
		RivalJvm holder = startRival("permit", TestDriver.LETTUCE, "pool", 1, LEASE.toMillis());
		long killedHoldersToken = CrossProcessLockTests.acquiredToken(holder);
		holder.kill();
		long beforeExpiryRead = System.nanoTime();
		long remainingMillis = entryMillisLeft();
		assertThat(remainingMillis).isBetween(1L, LEASE.toMillis());
		assertThat(pool.tryAcquire(Duration.ZERO)).isEmpty();
		Optional<LockLease> acquired = pool.tryAcquire(LEASE.plus(MARGIN));
		Duration waited = Duration.ofNanos(System.nanoTime() - beforeExpiryRead);
		assertThat(acquired)
			.hasValueSatisfying((permit) -> assertThat(permit.fencingToken()).isGreaterThan(killedHoldersToken));
		// Entries expire in whole milliseconds of the server's clock
		assertThat(waited).as("wait for the killed holder's entry with %d ms left", remainingMillis)
			.isGreaterThanOrEqualTo(Duration.ofMillis(remainingMillis - 1));
		acquired.get().release();
	}

	/**
	 * Return how long the only entry of the semaphore's permit holders has left, by the
	 * server's clock.
	 */
	private long entryMillisLeft() {
		double expiry = this.commands.zrangeWithScores(helperKey(LockKeys.PERMITS), 0, 0).get(0).getScore();
		List<String> time = this.commands.time();
		long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
		return (long) expiry - now;
	}

	private RivalJvm startRival(String mode, TestDriver driver, Object... args) {
		return CrossProcessLockTests.startRival(this.closer, redis.server().uri(), mode, driver, args);
	}

	private RedisLockRegistry registry() {
		return this.closer.add(TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))).registry();
	}

	private static String helperKey(String role) {
		return LockKeys.helperKey("lock:pool", role);
	}

}
