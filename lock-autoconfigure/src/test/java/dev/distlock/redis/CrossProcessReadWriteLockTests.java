package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import dev.distlock.FencedLock;
import dev.distlock.HoldKind;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.RivalJvm;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.distlock.redis.CrossProcessLockTests.RIVAL_REPLY;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The read/write lock across processes: a real {@code redis-server} and rival JVMs
 * ({@link LockWorkerMain}). A reader that dies holding its share ({@code SIGKILL}) keeps
 * writers out until its lease runs out, and not longer; writers and readers of three JVMs
 * exclude each other (writers increment a counter, readers find it unchanged while they
 * read); a writer that waits behind a stream of readers from two JVMs gets the lock long
 * before the stream ends.
 */
@Timeout(120)
class CrossProcessReadWriteLockTests {

	private static final String NAME = "catalogue";

	private static final LockId CATALOGUE = new LockId(LockName.of(NAME), "lock:" + NAME);

	private static final Duration LEASE = Duration.ofSeconds(1);

	/**
	 * Slack for scheduling on a busy machine, added to every bound that follows a lease.
	 */
	private static final Duration MARGIN = Duration.ofSeconds(3);

	private static final int THREADS = 4;

	private static final int ITERATIONS = 40;

	/** How long the rivals of the stream of readers read. */
	private static final Duration STREAM = Duration.ofSeconds(12);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private RedisCommands<String, String> commands;

	@BeforeEach
	void connect() {
		this.commands = this.closer.add(RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))).sync();
		this.commands.flushall();
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void shareOfAKilledReaderKeepsWritersOutUntilItsLeaseRunsOutAndNotLonger() {
		RivalJvm reader = startRival("read", TestDriver.LETTUCE, NAME, LEASE.toMillis());
		RedisLockRegistry registry = registry();
		listening(registry);
		FencedLock writer = registry.readWriteLock(NAME).writeLock();
		long killedReadersToken = CrossProcessLockTests.acquiredToken(reader);
		reader.kill();
		long beforeLook = System.nanoTime();
		long remainingMillis = shareLeftMillis();
		assertThat(remainingMillis).isBetween(1L, LEASE.toMillis());
		assertThat(writer.tryLock(LEASE.plus(MARGIN))).isTrue();
		Duration waited = Duration.ofNanos(System.nanoTime() - beforeLook);
		try {
			assertThat(writer.fencingToken()).isGreaterThan(killedReadersToken);
			// Redis counts expiries in whole milliseconds: allow for the rounding of two
			assertThat(waited).as("wait for the killed reader's share, %d ms left", remainingMillis)
				.isGreaterThanOrEqualTo(Duration.ofMillis(remainingMillis - 2))
				.isLessThan(LEASE.plus(MARGIN));
		}
		finally {
			writer.unlock();
		}
		assertThat(this.commands.exists(CATALOGUE.grantKeys[0], CATALOGUE.grantKeys[2], CATALOGUE.grantKeys[3],
				CATALOGUE.grantKeys[4]))
			.as("keys left")
			.isZero();
	}

	@Test
	void writersAndReadersOfThreeJvmsExcludeEachOther() throws Exception {
		RivalJvm first = startRival("read-write", TestDriver.LETTUCE, THREADS, ITERATIONS);
		RivalJvm second = startRival("read-write", TestDriver.SPRING_DATA_JEDIS, THREADS, ITERATIONS);
		RedisLockRegistry registry = registry();
		CrossProcessLockTests.startTogether(registry, first, second);
		SharedCounter counter = new SharedCounter(this.commands);
		long changedHere = counter.incrementAndReadUnderReadWriteLock(registry, THREADS, ITERATIONS);
		long changedInRivals = changedReads(first) + changedReads(second);
		assertThat(first.awaitExit(RIVAL_REPLY)).isZero();
		assertThat(second.awaitExit(RIVAL_REPLY)).isZero();
		assertThat(changedHere + changedInRivals).as("reads that saw a write while they held the read lock").isZero();
		int writes = 3 * THREADS * ITERATIONS / 2;
		assertThat(counter.value()).as("increments, none lost").isEqualTo(writes);
		assertThat(counter.fencingTokens()).as("fencing tokens in write order")
			.hasSize(writes)
			.doesNotHaveDuplicates()
			.isSorted();
	}

	@Test
	void writerWaitingBehindAStreamOfReadersOfTwoJvmsGetsTheLockLongBeforeTheStreamEnds() {
		List<RivalJvm> readers = List.of(startRival("read-stream", TestDriver.LETTUCE, NAME, 2, STREAM.toMillis()),
				startRival("read-stream", TestDriver.LETTUCE, NAME, 2, STREAM.toMillis()));
		RedisLockRegistry registry = registry();
		listening(registry);
		readers.forEach((reader) -> reader.awaitLine("READING", RIVAL_REPLY));
		FencedLock writer = registry.readWriteLock(NAME).writeLock();
		long beforeNanos = System.nanoTime();
		assertThat(writer.tryLock(STREAM)).isTrue();
		Duration waited = Duration.ofNanos(System.nanoTime() - beforeNanos);
		try {
			assertThat(this.commands.exists(LockKeys.heldKey(CATALOGUE, HoldKind.READ_SHARE))).as("read shares")
				.isZero();
		}
		finally {
			writer.unlock();
		}
		System.out.println("[read-write] the writer waited " + waited.toMillis() + " ms behind readers of "
				+ STREAM.toMillis() + " ms");
		assertThat(waited).as("the writer's wait").isLessThan(STREAM.dividedBy(4));
		for (RivalJvm reader : readers) {
			assertThat(Long.parseLong(reader.awaitLine("DONE ", STREAM.plus(RIVAL_REPLY)).substring("DONE ".length())))
				.as("reads of %s", reader)
				.isPositive();
			assertThat(reader.awaitExit(RIVAL_REPLY)).isZero();
		}
	}

	/**
	 * Have a registry connect and subscribe to its grants, as a registry whose waiters
	 * waited before has, so that the time a first wait takes for that is not counted.
	 */
	private static void listening(RedisLockRegistry registry) {
		LockLease held = registry.acquire("warm-up", Duration.ZERO);
		assertThat(registry.tryAcquire("warm-up", Duration.ofMillis(50))).isEmpty();
		held.release();
	}

	/**
	 * Return how long the only read share of {@value #NAME} has left, by the server's
	 * clock.
	 */
	private long shareLeftMillis() {
		ScoredValue<String> share = this.commands
			.zrangeWithScores(LockKeys.heldKey(CATALOGUE, HoldKind.READ_SHARE), 0, 0)
			.get(0);
		List<String> time = this.commands.time();
		long nowMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
		return (long) share.getScore() - nowMillis;
	}

	private static long changedReads(RivalJvm rival) {
		return Long.parseLong(rival.awaitLine("DONE ", RIVAL_REPLY).substring("DONE ".length()));
	}

	private RivalJvm startRival(String mode, TestDriver driver, Object... args) {
		return CrossProcessLockTests.startRival(this.closer, redis.server().uri(), mode, driver, args);
	}

	private RedisLockRegistry registry() {
		return this.closer.add(TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))).registry();
	}

}
