package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Behaviour of {@link RedisLockRegistry} across processes: a real {@code redis-server}
 * and rival JVMs ({@link LockWorkerMain}) that contend for a lock, die holding it
 * ({@code SIGKILL}) or stall holding it ({@code SIGSTOP}) until their lease has run out,
 * with and without a lock delay; a stalled holder on every {@link TestDriver}.
 */
@Timeout(60)
class CrossProcessLockTests {

	private static final int THREADS = 4;

	private static final int ITERATIONS = 50;

	private static final Duration LEASE = Duration.ofSeconds(1);

	private static final Duration LOCK_DELAY = Duration.ofSeconds(2);

	/**
	 * Slack for scheduling on a busy machine, added to every bound that follows a lease.
	 */
	private static final Duration MARGIN = Duration.ofSeconds(3);

	/** How long a rival JVM may take to start and report, or to answer a command. */
	static final Duration RIVAL_REPLY = Duration.ofSeconds(30);

	/** Options that make the short-lived rival JVMs start faster. */
	static final String[] RIVAL_JVM_OPTIONS = { "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC" };

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private RedisCommands<String, String> commands;

	@BeforeEach
	void connect() {
		RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5));
		this.closer.add(client);
		this.commands = client.sync();
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void noUpdateIsLostWhenThreadsOfThreeJvmsIncrementUnderOneLock() throws Exception {
		RivalJvm first = startRival("increment", TestDriver.LETTUCE, THREADS, ITERATIONS);
		RivalJvm second = startRival("increment", TestDriver.LETTUCE, THREADS, ITERATIONS);
		RedisLockRegistry registry = registry();
		startTogether(registry, first, second);
		SharedCounter counter = new SharedCounter(this.commands);
		counter.incrementUnderLock(registry, THREADS, ITERATIONS);
		assertThat(first.awaitExit(RIVAL_REPLY)).isZero();
		assertThat(second.awaitExit(RIVAL_REPLY)).isZero();
		int total = 3 * THREADS * ITERATIONS;
		assertThat(counter.value()).isEqualTo(total);
		assertThat(counter.fencingTokens()).as("fencing tokens in write order")
			.hasSize(total)
			.doesNotHaveDuplicates()
			.isSorted();
	}

	@Test
	void theSameIncrementsWithoutTheLockLoseUpdates() throws Exception {
		SharedCounter counter = new SharedCounter(this.commands);
		counter.incrementWithoutLock(THREADS, ITERATIONS);
		assertThat(counter.value()).isLessThan(THREADS * ITERATIONS);
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(LeaseMode.class)
	void lockOfAKilledHolderFreesAfterItsLeaseAndNotBefore(LeaseMode mode) {
		RivalJvm holder = startRival("hold", TestDriver.LETTUCE, "job", mode.argument, LEASE.toMillis());
		long killedHoldersToken = acquiredToken(holder);
		if (mode == LeaseMode.WATCHDOG) {
			awaitRenewal("lock:job");
		}
		holder.kill();
		long beforeTtlRead = System.nanoTime();
		long remainingMillis = this.commands.pttl("lock:job");
		RedisLockRegistry registry = registry();
		assertThat(remainingMillis).isBetween(1L, LEASE.toMillis());
		assertThat(registry.tryAcquire("job", Duration.ZERO)).isEmpty();
		Optional<LockLease> acquired = registry.tryAcquire("job", LEASE.plus(MARGIN));
		Duration waited = Duration.ofNanos(System.nanoTime() - beforeTtlRead);
		assertThat(acquired)
			.hasValueSatisfying((lease) -> assertThat(lease.fencingToken()).isGreaterThan(killedHoldersToken));
		// Redis counts TTLs in whole milliseconds: allow for the rounding of two of them
		assertThat(waited).as("wait for the killed holder's lease of %d ms left", remainingMillis)
			.isGreaterThanOrEqualTo(Duration.ofMillis(remainingMillis - 2))
			.isLessThan(LEASE.plus(MARGIN));
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(TestDriver.class)
	void pausedHolderLearnsOnResumeThatItLostTheLockAndCannotDeleteTheNewHoldersKey(TestDriver driver) {
		RivalJvm holder = startRival("hold", driver, "job", "watchdog", LEASE.toMillis());
		long pausedHoldersToken = acquiredToken(holder);
		holder.pause();
		awaitExpiry("lock:job");
		LockLease newHold = registry(driver).acquire("job", Duration.ZERO);
		assertThat(newHold.fencingToken()).isGreaterThan(pausedHoldersToken);
		String newHoldersKeyValue = this.commands.get("lock:job");
		holder.resume();
		holder.send("release");
		assertThat(holder.awaitLine("VALID BEFORE RELEASE ", RIVAL_REPLY)).isEqualTo("VALID BEFORE RELEASE false");
		assertThat(holder.awaitLine((line) -> line.startsWith("RELEASE"), RIVAL_REPLY))
			.isEqualTo("RELEASE THREW LockLostException " + pausedHoldersToken);
		assertThat(holder.awaitLine("LOST EVENTS ", RIVAL_REPLY))
			.isEqualTo("LOST EVENTS [job#" + pausedHoldersToken + "]");
		assertThat(this.commands.get("lock:job")).isEqualTo(newHoldersKeyValue);
		assertThat(newHold.isValid()).isTrue();
		newHold.release();
		assertThat(this.commands.exists("lock:job")).isZero();
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(LeaseMode.class)
	void lockOfAKilledHolderStaysTakenForTheLockDelayAfterItsLease(LeaseMode mode) {
		RivalJvm holder = startRival("hold", TestDriver.LETTUCE, "job", mode.argument, LEASE.toMillis(),
				LOCK_DELAY.toMillis());
		long killedHoldersToken = acquiredToken(holder);
		holder.kill();
		long beforeTtlRead = System.nanoTime();
		long remainingMillis = this.commands.pttl("lock:job");
		RedisLockRegistry registry = registry();
		assertThat(remainingMillis).as("lease and lock delay left")
			.isBetween(LOCK_DELAY.toMillis() + 1, LEASE.plus(LOCK_DELAY).toMillis());
		assertThat(registry.tryAcquire("job", Duration.ZERO)).isEmpty();
		Optional<LockLease> acquired = registry.tryAcquire("job", LEASE.plus(LOCK_DELAY).plus(MARGIN));
		Duration waited = Duration.ofNanos(System.nanoTime() - beforeTtlRead);
		assertThat(acquired)
			.hasValueSatisfying((lease) -> assertThat(lease.fencingToken()).isGreaterThan(killedHoldersToken));
		assertThat(waited).as("wait for the killed holder's lease and lock delay, %d ms left", remainingMillis)
			.isGreaterThanOrEqualTo(Duration.ofMillis(remainingMillis - 2))
			.isLessThan(LEASE.plus(LOCK_DELAY).plus(MARGIN));
	}

	@Test
	void pausedHolderThatWakesWithinTheLockDelayFindsItsLeaseOverAndNobodyTookTheLockMeanwhile() {
		RivalJvm holder = startRival("hold", TestDriver.LETTUCE, "job", "watchdog", LEASE.toMillis(),
				LOCK_DELAY.toMillis());
		long pausedHoldersToken = acquiredToken(holder);
		holder.pause();
		await().atMost(LEASE.plus(MARGIN))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.commands.pttl("lock:job") <= LOCK_DELAY.toMillis());
		RedisLockRegistry registry = registry();
		assertThat(registry.tryAcquire("job", Duration.ZERO)).as("lease over, lock delay running").isEmpty();
		holder.resume();
		holder.send("valid");
		assertThat(holder.awaitLine("VALID ", RIVAL_REPLY)).isEqualTo("VALID false");
		// A renewal of the resumed holder would keep the key for good: it is refused.
		LockLease newHold = registry.tryAcquire("job", LOCK_DELAY.plus(MARGIN)).orElseThrow();
		assertThat(newHold.fencingToken()).isGreaterThan(pausedHoldersToken);
		String newHoldersKeyValue = this.commands.get("lock:job");
		holder.send("release");
		assertThat(holder.awaitLine((line) -> line.startsWith("RELEASE"), RIVAL_REPLY))
			.isEqualTo("RELEASE THREW LockLostException " + pausedHoldersToken);
		assertThat(holder.awaitLine("LOST EVENTS ", RIVAL_REPLY))
			.isEqualTo("LOST EVENTS [job#" + pausedHoldersToken + "]");
		assertThat(this.commands.get("lock:job")).isEqualTo(newHoldersKeyValue);
		newHold.release();
	}

	@Test
	void releaseOfAHolderWithALockDelayFreesTheLockAtOnce() {
		RivalJvm holder = startRival("hold", TestDriver.LETTUCE, "job", "watchdog", LEASE.toMillis(),
				LOCK_DELAY.toMillis());
		long releasedToken = acquiredToken(holder);
		holder.send("release");
		assertThat(holder.awaitLine((line) -> line.startsWith("RELEASE"), RIVAL_REPLY)).isEqualTo("RELEASED");
		assertThat(registry().tryAcquire("job", Duration.ZERO))
			.hasValueSatisfying((lease) -> assertThat(lease.fencingToken()).isGreaterThan(releasedToken));
	}

	@Test
	void fencingTokenChecksRejectTheLateWriteOfAPausedHolder() {
		FencedStorage fenced = new FencedStorage(this.commands, LockWorkerMain.FENCED_STORAGE);
		RivalJvm holder = startRival("hold", TestDriver.LETTUCE, "ledger", "watchdog", LEASE.toMillis());
		long pausedHoldersToken = acquiredToken(holder);
		holder.send("write early");
		assertThat(holder.awaitLine("WRITE early ", RIVAL_REPLY)).isEqualTo("WRITE early ACCEPTED");
		holder.send("valid");
		assertThat(holder.awaitLine("VALID ", RIVAL_REPLY)).isEqualTo("VALID true");
		holder.pause();
		awaitExpiry("lock:ledger");
		LockLease newHold = registry().acquire("ledger", Duration.ZERO);
		assertThat(newHold.fencingToken()).isGreaterThan(pausedHoldersToken);
		assertThat(fenced.write(newHold.fencingToken(), "new")).isTrue();
		this.commands.set(LockWorkerMain.NAIVE_STORAGE, "new");
		holder.resume();
		holder.send("write late");
		holder.send("write-naive late");
		assertThat(holder.awaitLine("WRITE late ", RIVAL_REPLY)).isEqualTo("WRITE late REJECTED");
		assertThat(holder.awaitLine("WRITE-NAIVE late ", RIVAL_REPLY)).isEqualTo("WRITE-NAIVE late DONE");
		assertThat(fenced.read()).isEqualTo("new");
		assertThat(this.commands.get(LockWorkerMain.NAIVE_STORAGE)).as("storage without fencing").isEqualTo("late");
		newHold.release();
	}

	/**
	 * Start a {@link LockWorkerMain} in the given mode, on the given driver, against the
	 * test's server, with the mode's further arguments.
	 */
	private RivalJvm startRival(String mode, TestDriver driver, Object... args) {
		return startRival(this.closer, redis.server().uri(), mode, driver, args);
	}

	/**
	 * Start a {@link LockWorkerMain} in the given mode, on the given driver, against the
	 * server at the given URI, with the mode's further arguments.
	 * @param closer kills the rival after the test
	 */
	static RivalJvm startRival(Closer closer, String uri, String mode, TestDriver driver, Object... args) {
		List<String> all = new ArrayList<>(List.of(mode, driver.name(), uri));
		List.of(args).forEach((arg) -> all.add(String.valueOf(arg)));
		return closer.add(RivalJvm.builder(LockWorkerMain.class)
			.jvmOptions(RIVAL_JVM_OPTIONS)
			.args(all.toArray(String[]::new))
			.start());
	}

	/**
	 * Warm the given registry up, wait until every rival JVM in {@code increment} or
	 * {@code read-write} mode is {@code READY}, and tell them all to go.
	 */
	static void startTogether(RedisLockRegistry registry, RivalJvm... rivals) {
		registry.acquire("warm-up", Duration.ofSeconds(10)).release();
		for (RivalJvm rival : rivals) {
			rival.awaitLine("READY", RIVAL_REPLY);
		}
		for (RivalJvm rival : rivals) {
			rival.send("go");
		}
	}

	private RedisLockRegistry registry() {
		return registry(TestDriver.LETTUCE);
	}

	private RedisLockRegistry registry(TestDriver driver) {
		TestLockRegistry registry = TestLockRegistry.create(driver, redis.server().uri(), Duration.ofSeconds(30));
		this.closer.add(registry);
		return registry.registry();
	}

	/**
	 * Return the fencing token a rival JVM in {@code hold} mode reports once it holds its
	 * lock.
	 */
	static long acquiredToken(RivalJvm holder) {
		return Long.parseLong(holder.awaitLine("ACQUIRED ", RIVAL_REPLY).substring("ACQUIRED ".length()));
	}

	/**
	 * Wait until the key's TTL was extended: its remaining TTL plus the time since the
	 * first look exceeds the first look's TTL by more than scheduling noise could.
	 */
	private void awaitRenewal(String key) {
		long firstTtl = this.commands.pttl(key);
		long firstLookAt = System.nanoTime();
		await().atMost(LEASE.plus(MARGIN)).pollInterval(Duration.ofMillis(10)).until(() -> {
			long ttl = this.commands.pttl(key);
			long elapsedMillis = Duration.ofNanos(System.nanoTime() - firstLookAt).toMillis();
			return ttl > 0 && ttl + elapsedMillis > firstTtl + LEASE.toMillis() / 6;
		});
	}

	private void awaitExpiry(String key) {
		await().atMost(LEASE.plus(MARGIN))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.commands.exists(key) == 0L);
	}

	/**
	 * How a rival holds its lock.
	 */
	enum LeaseMode {

		/** Renewed by the watchdog every third of the lease time while the JVM lives. */
		WATCHDOG("watchdog"),

		/** A fixed lease that is never renewed. */
		FIXED("fixed");

		private final String argument;

		LeaseMode(String argument) {
			this.argument = argument;
		}

	}

}
