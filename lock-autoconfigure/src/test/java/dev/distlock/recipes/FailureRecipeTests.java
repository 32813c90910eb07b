package dev.distlock.recipes;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.RivalJvm;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.lettuce.core.SetArgs.Builder.nx;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.awaitility.Awaitility.await;

/**
 * The hand-rolled Redis lock recipes 1 to 4 in docs/design.md#failure-recipes, each
 * written with plain Lettuce commands and driven step by step into its failure against a
 * real {@code redis-server}, next to distlock in the same scenario, where the failure
 * does not happen:
 * <ol>
 * <li>{@code SETNX} then {@code EXPIRE}: a holder killed between the two leaves a lock
 * that never expires; a killed distlock holder's lock frees after its lease.
 * <li>{@code SETNX} of a timestamp and {@code DEL} of "expired" locks: two clients that
 * saw the same stale lock both take it; of eight registries racing for a dead holder's
 * lock, exactly one wins.
 * <li>Plain {@code DEL} to release: a stalled holder deletes the next holder's lock; a
 * stalled distlock holder's release throws and leaves the next holder's key alone.
 * <li>Fixed expiry without renewal: a job longer than its lease lets a second client in;
 * the watchdog keeps a long job's lock for three times its lease.
 * </ol>
 */
@Timeout(60)
class FailureRecipeTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final Duration RIVAL_WAIT = Duration.ofSeconds(20);

	private final List<AutoCloseable> closeables = new ArrayList<>();

	private RedisCommands<String, String> commands;

	@BeforeEach
	void connect() {
		this.commands = connection();
	}

	@AfterEach
	void close() throws Exception {
		Collections.reverse(this.closeables);
		for (AutoCloseable closeable : this.closeables) {
			closeable.close();
		}
	}

	/**
	 * Recipe 1: {@code SETNX} then {@code EXPIRE} as two commands.
	 */
	@Nested
	class SetnxThenExpire {

		@Test
		void naiveSetnxThenExpireLeavesALockThatNeverExpiresWhenTheHolderDiesBetween() {
			try (RivalJvm holder = RivalJvm.start(SetnxThenExpireHolder.class, redis.server().uri(), "naive:report",
					"200")) {
				assertThat(holder.awaitLine("SETNX ", RIVAL_WAIT)).isEqualTo("SETNX true");
				holder.kill();
			}
			assertThat(FailureRecipeTests.this.commands.pttl("naive:report")).as("TTL of the orphaned lock")
				.isEqualTo(-1L);
			await().during(Duration.ofMillis(600))
				.atMost(Duration.ofSeconds(2))
				.until(() -> FailureRecipeTests.this.commands.exists("naive:report") == 1L);
			assertThat(connection().setnx("naive:report", "newcomer")).isFalse();
		}

		@Test
		void distlockLockOfAKilledHolderFreesAfterItsLeaseAndNotBefore() {
			TestLockRegistry newcomer = registry(Duration.ofSeconds(30));
			long killedHoldersToken;
			try (RivalJvm holder = RivalJvm.start(DistlockLeaseHolder.class, redis.server().uri(), "report", "1000")) {
				String acquired = holder.awaitLine("ACQUIRED ", RIVAL_WAIT);
				killedHoldersToken = Long.parseLong(acquired.substring("ACQUIRED ".length()));
				holder.kill();
			}
			assertThat(newcomer.registry().tryAcquire("report", Duration.ZERO)).isEmpty();
			assertThat(FailureRecipeTests.this.commands.pttl("lock:report")).as("TTL of the orphaned lock")
				.isBetween(1L, 1000L);
			LockLease lease = await().atMost(Duration.ofSeconds(4))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> newcomer.registry().tryAcquire("report", Duration.ZERO), Optional::isPresent)
				.orElseThrow();
			assertThat(lease.fencingToken()).isGreaterThan(killedHoldersToken);
			lease.release();
		}

	}

	/**
	 * Recipe 2: {@code SETNX} with a Unix-timestamp value and {@code DEL} of "expired"
	 * locks.
	 */
	@Nested
	class TimestampValueAndDel {

		@Test
		void naiveTimestampLockLetsTwoClientsThatSawItExpiredBothHoldIt() {
			RedisCommands<String, String> a = connection();
			RedisCommands<String, String> b = connection();
			String deadHoldersExpiry = Long.toString(System.currentTimeMillis() - 1_000);
			FailureRecipeTests.this.commands.set("naive:report", deadHoldersExpiry);
			String expiry = Long.toString(System.currentTimeMillis() + 10_000);

			assertThat(a.setnx("naive:report", expiry)).isFalse();
			assertThat(b.setnx("naive:report", expiry)).isFalse();
			assertThat(hasPassed(a.get("naive:report"))).isTrue();
			assertThat(hasPassed(b.get("naive:report"))).isTrue();
			a.del("naive:report");
			boolean aHoldsIt = a.setnx("naive:report", expiry);
			b.del("naive:report");
			boolean bHoldsIt = b.setnx("naive:report", expiry);

			assertThat(aHoldsIt).as("A holds the lock").isTrue();
			assertThat(bHoldsIt).as("B holds the lock").isTrue();
		}

		@Test
		void distlockLetsExactlyOneOfEightRacingRegistriesTakeTheExpiredLockOfADeadHolder() throws Exception {
			List<TestLockRegistry> racers = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				TestLockRegistry racer = registry(Duration.ofSeconds(30));
				// Connected before the race, so that all of them reach Redis together
				racer.registry().acquire("warm-up-" + i, Duration.ZERO).release();
				racers.add(racer);
			}
			long deadHoldersToken;
			try (TestLockRegistry deadHolder = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))) {
				deadHoldersToken = deadHolder.registry()
					.tryAcquire("report", Duration.ZERO, LeaseOptions.fixed(Duration.ofMillis(200)))
					.orElseThrow()
					.fencingToken();
			}
			awaitExpiry("lock:report");

			CyclicBarrier start = new CyclicBarrier(racers.size());
			ExecutorService pool = Executors.newFixedThreadPool(racers.size());
			try {
				List<Future<Optional<LockLease>>> attempts = new ArrayList<>();
				for (TestLockRegistry racer : racers) {
					attempts.add(pool.submit(() -> {
						start.await();
						return racer.registry().tryAcquire("report", Duration.ZERO);
					}));
				}
				List<LockLease> winners = new ArrayList<>();
				for (Future<Optional<LockLease>> attempt : attempts) {
					attempt.get(10, TimeUnit.SECONDS).ifPresent(winners::add);
				}
				assertThat(winners).singleElement()
					.satisfies((winner) -> assertThat(winner.fencingToken()).isGreaterThan(deadHoldersToken));
				winners.get(0).release();
			}
			finally {
				pool.shutdownNow();
			}
		}

		private static boolean hasPassed(String expiry) {
			return Long.parseLong(expiry) < System.currentTimeMillis();
		}

	}

	/**
	 * Recipe 3: plain {@code DEL} to release.
	 */
	@Nested
	class PlainDelToRelease {

		@Test
		void naivePlainDelOfAStalledHolderDeletesTheNextHoldersLock() {
			RedisCommands<String, String> a = connection();
			RedisCommands<String, String> b = connection();
			RedisCommands<String, String> c = connection();

			assertThat(a.set("naive:report", "a", nx().px(200))).isEqualTo("OK");
			awaitExpiry("naive:report");
			assertThat(b.set("naive:report", "b", nx().px(10_000))).isEqualTo("OK");
			assertThat(a.del("naive:report")).as("keys A's release deleted").isOne();
			assertThat(c.set("naive:report", "c", nx().px(10_000))).isEqualTo("OK");

			assertThat(FailureRecipeTests.this.commands.get("naive:report")).as("holder of B's lock").isEqualTo("c");
		}

		@Test
		void distlockReleaseOfAStalledHolderThrowsAndLeavesTheNextHoldersLock() {
			TestLockRegistry a = registry(Duration.ofSeconds(30));
			TestLockRegistry b = registry(Duration.ofSeconds(30));
			TestLockRegistry c = registry(Duration.ofSeconds(30));

			LockLease stalled = a.registry()
				.tryAcquire("report", Duration.ZERO, LeaseOptions.fixed(Duration.ofMillis(200)))
				.orElseThrow();
			awaitExpiry("lock:report");
			LockLease next = b.registry().acquire("report", Duration.ZERO);
			String nextHoldersToken = FailureRecipeTests.this.commands.get("lock:report");
			assertThatExceptionOfType(LockLostException.class).isThrownBy(stalled::release)
				.satisfies((ex) -> assertThat(ex.getFencingToken()).isEqualTo(stalled.fencingToken()));

			assertThat(FailureRecipeTests.this.commands.get("lock:report")).isEqualTo(nextHoldersToken);
			assertThat(c.registry().tryAcquire("report", Duration.ZERO)).isEmpty();
			assertThat(next.isValid()).isTrue();
			assertThatNoException().isThrownBy(next::release);
			await().atMost(RIVAL_WAIT)
				.untilAsserted(() -> assertThat(a.lostEvents()).singleElement().satisfies((event) -> {
					assertThat(event.name()).isEqualTo("report");
					assertThat(event.key()).isEqualTo("lock:report");
					assertThat(event.fencingToken()).isEqualTo(stalled.fencingToken());
				}));
			assertThat(b.lostEvents()).isEmpty();
		}

	}

	/**
	 * Recipe 4: fixed expiry with no renewal.
	 */
	@Nested
	class FixedExpiryWithoutRenewal {

		@Test
		void naiveFixedExpiryLetsASecondClientInWhileALongJobStillRuns() throws Exception {
			RedisCommands<String, String> job = connection();
			RedisCommands<String, String> rival = connection();

			assertThat(job.set("naive:report", "job", nx().px(300))).isEqualTo("OK");
			RivalAttempts rivalAttempts = runJob(Duration.ofMillis(900),
					() -> "OK".equals(rival.set("naive:report", "rival", nx().px(10_000))));

			assertThat(rivalAttempts.acquiredAfter()).as("rival acquisitions during the job").hasSize(1);
			assertThat(job.get("naive:report")).as("holder when the job ends").isEqualTo("rival");
		}

		@Test
		void distlockWatchdogKeepsALongJobsLockForThreeTimesItsLease() throws Exception {
			TestLockRegistry holder = registry(Duration.ofMillis(300));
			TestLockRegistry rival = registry(Duration.ofMillis(300));

			LockLease lease = holder.registry().acquire("report", Duration.ZERO);
			RivalAttempts rivalAttempts = runJob(Duration.ofSeconds(1),
					() -> rival.registry().tryAcquire("report", Duration.ZERO).isPresent());

			assertThat(rivalAttempts.tries()).isGreaterThan(5);
			assertThat(rivalAttempts.acquiredAfter()).as("rival acquisitions during the job").isEmpty();
			assertThat(lease.isValid()).isTrue();
			assertThatNoException().isThrownBy(lease::release);
			assertThat(holder.lostEvents()).isEmpty();
		}

		/**
		 * Run a job that takes the given time; all along, a rival tries every 50 ms to
		 * take the job's lock.
		 */
		private RivalAttempts runJob(Duration jobTime, BooleanSupplier rivalAttempt) throws InterruptedException {
			long start = System.nanoTime();
			int tries = 0;
			List<Duration> acquiredAfter = new ArrayList<>();
			while (System.nanoTime() - start < jobTime.toNanos()) {
				tries++;
				if (rivalAttempt.getAsBoolean()) {
					acquiredAfter.add(Duration.ofNanos(System.nanoTime() - start));
				}
				Thread.sleep(50);
			}
			return new RivalAttempts(tries, acquiredAfter);
		}

	}

	private void awaitExpiry(String key) {
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.commands.exists(key) == 0L);
	}

	private RedisCommands<String, String> connection() {
		RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5));
		this.closeables.add(client);
		return client.sync();
	}

	private TestLockRegistry registry(Duration leaseTime) {
		TestLockRegistry registry = TestLockRegistry.create(redis.server().uri(), leaseTime);
		this.closeables.add(registry);
		return registry;
	}

	/**
	 * What a rival saw while a job held its lock: how often it tried, and after how long
	 * into the job each of its successful acquisitions came.
	 */
	private record RivalAttempts(int tries, List<Duration> acquiredAfter) {

	}

	/**
	 * A rival that takes a lock the naive way: {@code SETNX}, then {@code PEXPIRE} once
	 * it reads a line from standard input, so that a test can kill it in between.
	 * Arguments: Redis URI, key, intended expiry in milliseconds. Prints
	 * {@code SETNX <reply>} after the {@code SETNX}.
	 */
	static class SetnxThenExpireHolder {

		public static void main(String[] args) throws IOException {
			try (RedisTestClient client = RedisTestClient.connect(args[0], Duration.ofSeconds(5))) {
				RedisCommands<String, String> commands = client.sync();
				System.out.println("SETNX " + commands.setnx(args[1], "rival"));
				new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
				commands.pexpire(args[1], Long.parseLong(args[2]));
			}
		}

	}

	/**
	 * A rival that holds a distlock lease in watchdog mode until it reads a line from
	 * standard input. Arguments: Redis URI, lock name, lease time in milliseconds. Prints
	 * {@code ACQUIRED <fencing token>} once it holds the lock.
	 */
	static class DistlockLeaseHolder {

		public static void main(String[] args) throws IOException {
			try (TestLockRegistry registry = TestLockRegistry.create(args[0],
					Duration.ofMillis(Long.parseLong(args[2])))) {
				LockLease lease = registry.registry().acquire(args[1], Duration.ZERO);
				System.out.println("ACQUIRED " + lease.fencingToken());
				new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
				lease.release();
			}
		}

	}

}
