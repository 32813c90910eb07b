package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockEvent;
import dev.distlock.LockName;
import dev.distlock.redis.connection.LockConnections;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.LettuceClients;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.RivalJvm;
import dev.distlock.testsupport.TcpProxy;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.distlock.redis.CrossProcessLockTests.RIVAL_REPLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * The wait queue of a lock in Redis, with waiters in rival JVMs ({@link LockWorkerMain})
 * that die, pause and give up while queued: a grant to a waiter that cannot take it up
 * costs the others about the claim time and a re-check, never a lease, and a lock that is
 * free while others wait goes to the first of them, not to a newcomer. A waiter of
 * another registry (another process, as far as Redis knows) starts on the message of its
 * grant, without an acquire round trip, even while Redis stalls right after the release,
 * and the renewal that takes the grant up once Redis answers extends it to its lease; a
 * message for another waiter's grant, or for a grant made before the waiter's last
 * attempt, is not started on; a waiter that releases before its take-up was due never
 * sends it, unless Redis has not answered its release by then, and one whose release
 * reaches Redis after the claim time is not reported lost; a waiter of an earlier
 * version, whose queue entry says nothing to start on, is told the lock key alone.
 */
@Timeout(120)
class WaitQueueTests {

	/** Far longer than anything these tests wait for, so that no lease runs out. */
	private static final Duration LEASE = Duration.ofSeconds(60);

	/** The claim time, a re-check and a generous margin for a busy machine. */
	private static final Duration WITHIN_A_RECHECK = Duration.ofMillis(RedisAcquirer.CLAIM_MILLIS)
		.plusMillis(RedisAcquirer.RECHECK_MILLIS)
		.plusSeconds(8);

	/**
	 * Rounds in which the release may miss the first quarter of the waiter's claim time.
	 */
	private static final int ROUNDS = 5;

	/**
	 * When a waiter started on its grant's message takes the grant up, after it began to
	 * acquire: a quarter of the claim time.
	 */
	private static final long TAKE_UP_NANOS = TimeUnit.MILLISECONDS.toNanos(RedisAcquirer.CLAIM_MILLIS) / 4;

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
	void grantToAWaiterThatDiedGoesToTheNextWaiterWithinARecheck() throws Exception {
		LockLease held = registry().acquire("job", Duration.ZERO);
		RivalJvm rival = queuedRival("job");
		rival.kill();
		assertNextWaiterGetsTheLockSoonAfter(held);
	}

	@Test
	void pausedWaiterLosesItsGrantToTheNextAndTakesTheLockAfterItResumes() throws Exception {
		LockLease held = registry().acquire("job", Duration.ZERO);
		RivalJvm rival = queuedRival("job");
		rival.pause();
		try {
			assertNextWaiterGetsTheLockSoonAfter(held).release();
		}
		finally {
			rival.resume();
		}
		long token = CrossProcessLockTests.acquiredToken(rival);
		assertThat(token).isGreaterThan(held.fencingToken());
		release(rival);
	}

	@Test
	void lockFreedWhileOthersWaitGoesToTheFirstWaiterNotToANewcomer() throws Exception {
		LockLease held = registry().acquire("job", Duration.ZERO);
		RedisLockRegistry waiting = registry();
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		CompletableFuture<LockLease> acquired = waiter.call(() -> waiting.acquire("job", Duration.ofSeconds(30)));
		await().atMost(RIVAL_REPLY).until(() -> TestLockRegistry.waitersOf(this.commands, "lock:job") == 1L);
		// The holder's key expires (its holder stalled): nobody releases it
		this.commands.del("lock:job");
		assertThat(registry().tryAcquire("job", Duration.ZERO)).as("a newcomer").isEmpty();
		assertThat(acquired.get(WITHIN_A_RECHECK.toSeconds(), TimeUnit.SECONDS).fencingToken())
			.isGreaterThan(held.fencingToken());
	}

	@Test
	void waiterWhoseRoundTripExceedsTheClaimTimeGetsTheLockBeforeANewcomer() throws Exception {
		TcpProxy proxy = this.closer.add(TcpProxy.start(redis.server().port()));
		RedisLockRegistry far = this.closer.add(TestLockRegistry.create(proxy.uri(), LEASE)).registry();
		RedisLockRegistry near = registry();
		LockLease held = near.acquire("job", Duration.ZERO);
		// A round trip of twice the claim time: a grant's message and the take-up that
		// answers it reach Redis after the grant expired
		proxy.setLatency(Duration.ofMillis(RedisAcquirer.CLAIM_MILLIS));
		TestThread waiter = this.closer.add(TestThread.start("far waiter"));
		CompletableFuture<Long> farToken = waiter.call(() -> {
			LockLease lease = far.acquire("job", Duration.ofSeconds(60));
			lease.release();
			return lease.fencingToken();
		});
		await().atMost(RIVAL_REPLY).until(() -> TestLockRegistry.waitersOf(this.commands, "lock:job") == 1L);
		int turns = 0;
		while (turns < 5 && !farToken.isDone()) {
			// The far waiter was first in the queue: the near holder comes back as a
			// newcomer behind it
			held.release();
			held = near.acquire("job", Duration.ofSeconds(30));
			turns++;
			await().atMost(RIVAL_REPLY)
				.until(() -> farToken.isDone() || TestLockRegistry.waitersOf(this.commands, "lock:job") == 1L);
		}
		assertThat(farToken).as("the far waiter's turn, after %d releases of the near holder", turns).isDone();
		assertThat(farToken.get()).isLessThan(held.fencingToken());
		held.release();
	}

	@Test
	void waitersOfOtherProcessesAreWokenOneByOne() throws Exception {
		LockLease held = registry().acquire("job", Duration.ZERO);
		List<RivalJvm> rivals = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			rivals.add(queuedRival("job"));
		}
		CommandStats stats = new CommandStats(this.commands);
		stats.reset();
		held.release();
		long previous = held.fencingToken();
		for (RivalJvm rival : rivals) {
			long token = CrossProcessLockTests.acquiredToken(rival);
			assertThat(token).as("in the order they came").isGreaterThan(previous);
			previous = token;
			release(rival);
		}
		assertThat(stats.calls()).as("one message per release that had a waiter").containsEntry("publish", 3L);
		assertThat(TestLockRegistry.waitersOf(this.commands, "lock:job")).isZero();
	}

	@Test
	void queueOfWaitersThatDiedIsGoneOnceTheirEntriesExpire() throws Exception {
		LockLease held = registry().acquire("job", Duration.ZERO);
		RivalJvm rival = queuedRival("job");
		rival.kill();
		await().atMost(Duration.ofMillis(RedisAcquirer.ENTRY_MILLIS).plusSeconds(5))
			.untilAsserted(() -> assertThat(this.commands.exists(LockKeys.helperKey("lock:job", LockKeys.QUEUE),
					LockKeys.helperKey("lock:job", LockKeys.WAITERS)))
				.isZero());
		held.release();
		assertThat(this.commands.exists("lock:job")).isZero();
	}

	/**
	 * The release comes right after the waiter queued, so that its grant's message comes
	 * within the first quarter of its claim time; on a busy machine it may not, and the
	 * waiter then takes the grant up with an attempt, once Redis answers again: the round
	 * is repeated.
	 */
	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void waiterStartsOnItsGrantMessageWhileRedisStallsAndTakesTheGrantUpAfter(boolean watchdog) throws Exception {
		LeaseOptions options = watchdog ? LeaseOptions.WATCHDOG : LeaseOptions.fixed(LEASE);
		RedisLockRegistry holding = registry();
		TestLockRegistry waiting = testRegistry();
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		for (int round = 1; round <= ROUNDS; round++) {
			LockLease held = holding.acquire("job", Duration.ZERO);
			CompletableFuture<LockLease> acquired = queued(waiter, waiting.registry(), options);
			long releasedAt = System.nanoTime();
			held.release();
			LockLease started = acquiredWhileRedisStalls(acquired);
			if (started != null) {
				System.out.printf("[grant-message] started %d µs after the release, in round %d%n",
						TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - releasedAt), round);
				assertThat(started.fencingToken()).isGreaterThan(held.fencingToken());
				// Past the claim time: the take-up extended the key and the hold
				await().pollDelay(Duration.ofMillis(2 * RedisAcquirer.CLAIM_MILLIS))
					.atMost(Duration.ofSeconds(5))
					.untilAsserted(
							() -> assertThat(this.commands.pttl("lock:job")).isGreaterThan(LEASE.toMillis() / 2));
				assertThat(started.isValid()).isTrue();
				assertThat(waiting.lostEvents()).isEmpty();
				assertThat(this.commands.get(LockKeys.fenceKey("lock:job")))
					.as("no fencing token issued after the grant's")
					.isEqualTo(Long.toString(started.fencingToken()));
				started.release();
				return;
			}
			acquired.get(10, TimeUnit.SECONDS).release();
		}
		fail("The waiter never started on its grant's message in " + ROUNDS + " rounds");
	}

	/**
	 * The hold is released before a quarter of the claim time has passed since its waiter
	 * began to acquire, so that its take-up was not due yet: Redis then runs the release
	 * alone, and no renewal extends anything ({@code PEXPIRE} is run by renewals only).
	 */
	@Test
	void holdStartedOnItsGrantAndReleasedBeforeItsTakeUpTimeNeverTakesItUp() throws Throwable {
		TestLockRegistry waiting = testRegistry();
		CommandStats stats = new CommandStats(this.commands);
		untilReleasedBeforeTakeUp(waiting.registry(), stats::reset, () -> {
			// Past the time a take-up was due
			Thread.sleep(TimeUnit.NANOSECONDS.toMillis(2 * TAKE_UP_NANOS));
			assertThat(stats.calls()).as("no renewal").doesNotContainKey("pexpire");
			assertThat(this.commands.exists("lock:job")).isZero();
			assertThat(waiting.lostEvents()).isEmpty();
		});
	}

	/**
	 * The waiter's release starts before its take-up is due but reaches Redis only after
	 * the claim time, held up on its way as behind the other commands of a busy pool: the
	 * take-up is sent meanwhile and extends the key, so that the release frees the lock
	 * rather than finding it expired.
	 */
	@Test
	void holdStartedOnItsGrantWhoseReleaseReachesRedisAfterTheClaimTimeIsReleasedNotLost() throws Throwable {
		RedisClient client = RedisClient.create(redis.server().uri());
		this.closer.add(() -> LettuceClients.shutdown(client));
		List<LockEvent> events = new CopyOnWriteArrayList<>();
		RedisLockRegistry waiting = this.closer.add(new RedisLockRegistry(
				new HeldUpConnection(LockConnections.lettuce(client), LuaScript.RELEASE,
						Duration.ofMillis(2 * RedisAcquirer.CLAIM_MILLIS), Duration.ZERO, Integer.MAX_VALUE),
				TestLockRegistry.settings(LEASE), events::add));
		untilReleasedBeforeTakeUp(waiting, () -> {
		}, () -> {
			assertThat(events).isEmpty();
			assertThat(this.commands.exists("lock:job")).isZero();
		});
	}

	@Test
	void messageForAnotherWaiterOrAnEarlierAttemptIsNotStartedOn() throws Exception {
		LockLease held = registry().acquire("job", Duration.ZERO);
		TestLockRegistry waiting = testRegistry();
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		CompletableFuture<LockLease> acquired = waiter
			.call(() -> waiting.registry().acquire("job", Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> TestLockRegistry.waitersOf(this.commands, "lock:job") == 1L);
		Map<String, String> entries = this.commands.hgetall(LockKeys.helperKey("lock:job", LockKeys.WAITERS));
		assertThat(entries).hasSize(2);
		String token = entries.keySet().stream().filter((field) -> !field.endsWith("!start")).findFirst().orElseThrow();
		// <expiry> <claim plus lock delay> <channel>, and <fence millis> <attempt>
		String channel = entries.get(token).split(" ", 3)[2];
		long attempt = Long.parseLong(entries.get(token + "!start").split(" ")[1]);
		this.commands.publish(channel, grantMessage("another-waiter", attempt));
		this.commands.publish(channel, grantMessage(token, attempt - 1));
		this.commands.publish(channel, "lock:job!" + token + " not-a-grant");
		assertThat(acquired).as("started on a message of a grant it does not have")
			.failsWithin(Duration.ofMillis(500))
			.withThrowableOfType(TimeoutException.class);
		held.release();
		LockLease next = acquired.get(10, TimeUnit.SECONDS);
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		assertThat(next.isValid()).isTrue();
		next.release();
		assertThat(waiting.lostEvents()).isEmpty();
	}

	@Test
	void grantToAWaiterOfAnEarlierVersionTellsItTheLockKeyAlone() throws Exception {
		LockLease held = registry().acquire("job", Duration.ZERO);
		RedisClient client = RedisClient.create(redis.server().uri());
		this.closer.add(() -> LettuceClients.shutdown(client));
		BlockingQueue<String> messages = TestLockRegistry.grantMessages(client, this.closer);
		// The entry an earlier version writes: <expiry> <claim> <channel>, nothing to
		// start on
		List<String> time = this.commands.time();
		long nowMillis = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
		this.commands.zadd(LockKeys.helperKey("lock:job", LockKeys.QUEUE), nowMillis * 1000.0, "earlier-waiter");
		this.commands.hset(LockKeys.helperKey("lock:job", LockKeys.WAITERS), "earlier-waiter",
				(nowMillis + 3000) + " 250 lock:!grants:earlier");
		held.release();
		assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("lock:job");
		assertThat(this.commands.get("lock:job")).isEqualTo("earlier-waiter");
		assertThat(this.commands.pttl("lock:job")).isBetween(1L, 250L);
	}

	/**
	 * Have the waiter acquire the lock with the given options, and return once it is the
	 * only one in the queue, polling every millisecond so that the release that follows
	 * comes early in its claim time.
	 */
	private CompletableFuture<LockLease> queued(TestThread waiter, RedisLockRegistry waiting, LeaseOptions options) {
		CompletableFuture<LockLease> acquired = waiter
			.call(() -> waiting.tryAcquire("job", Duration.ofSeconds(30), options).orElseThrow());
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(1))
			.until(() -> TestLockRegistry.waitersOf(this.commands, "lock:job") == 1L);
		return acquired;
	}

	/**
	 * Stall Redis, give the waiter a second to get the lock, and let Redis go on.
	 * @return the lease, or {@code null} if the waiter waits for Redis
	 */
	private static @Nullable LockLease acquiredWhileRedisStalls(CompletableFuture<LockLease> acquired)
			throws Exception {
		redis.server().pause();
		try {
			LockLease started = acquired.get(1, TimeUnit.SECONDS);
			// Past its take-up's time (a quarter of the claim time after the attempt,
			// which came before the release), so that the take-up waits for Redis too
			Thread.sleep(RedisAcquirer.CLAIM_MILLIS / 4 + 10);
			return started;
		}
		catch (TimeoutException ex) {
			return null;
		}
		finally {
			redis.server().resume();
		}
	}

	private static String grantMessage(String token, long attempt) {
		return "lock:job" + LockName.RESERVED + token + " " + attempt + " " + Long.MAX_VALUE / 2;
	}

	/**
	 * Start a waiter for the lock in the queue, release the given hold and return the
	 * hold the waiter got, asserting it came well before any lease could run out.
	 */
	private LockLease assertNextWaiterGetsTheLockSoonAfter(LockLease held) throws Exception {
		RedisLockRegistry waiting = registry();
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		CompletableFuture<LockLease> acquired = waiter.call(() -> waiting.acquire("job", Duration.ofSeconds(30)));
		await().atMost(RIVAL_REPLY).until(() -> TestLockRegistry.waitersOf(this.commands, "lock:job") == 2L);
		long releasedAt = System.nanoTime();
		held.release();
		LockLease next = acquired.get(WITHIN_A_RECHECK.toSeconds(), TimeUnit.SECONDS);
		System.out.printf("[wait-queue] the next waiter got the lock %d ms after the release%n",
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt));
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		return next;
	}

	/**
	 * Start a rival JVM that waits for the lock and return it once it is in the queue.
	 */
	private RivalJvm queuedRival(String name) {
		long before = TestLockRegistry.waitersOf(this.commands, "lock:" + name);
		RivalJvm rival = this.closer.add(RivalJvm.builder(LockWorkerMain.class)
			.jvmOptions(CrossProcessLockTests.RIVAL_JVM_OPTIONS)
			.args("hold", TestDriver.LETTUCE.name(), redis.server().uri(), name, "watchdog",
					Long.toString(LEASE.toMillis()), "0", Long.toString(RIVAL_REPLY.multipliedBy(2).toMillis()))
			.start());
		rival.awaitLine("WAITING", RIVAL_REPLY);
		await().atMost(RIVAL_REPLY)
			.until(() -> TestLockRegistry.waitersOf(this.commands, "lock:" + name) == before + 1);
		return rival;
	}

	/**
	 * Have a rival JVM release its lock, and wait until it has.
	 */
	private static void release(RivalJvm rival) {
		rival.send("release");
		rival.awaitLine((line) -> line.startsWith("RELEASE"), RIVAL_REPLY);
	}

	/**
	 * Run rounds in which a waiter of the given registry queues for the lock a holder of
	 * another registry holds, starts on the grant of its release and releases it at once,
	 * until one in which the waiter started on the grant's message and released before
	 * its take-up was due ({@link #TAKE_UP_NANOS} after it began to acquire); then run
	 * the given check. A round is repeated when the waiter did not start on the grant's
	 * message (its fencing token is not the message's) or released too late.
	 * @param beforeRelease run just before the holder releases
	 */
	private void untilReleasedBeforeTakeUp(RedisLockRegistry waiting, Runnable beforeRelease, Executable check)
			throws Throwable {
		RedisLockRegistry holding = registry();
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		RedisClient client = RedisClient.create(redis.server().uri());
		this.closer.add(() -> LettuceClients.shutdown(client));
		BlockingQueue<String> messages = TestLockRegistry.grantMessages(client, this.closer);
		for (int round = 1; round <= ROUNDS; round++) {
			LockLease held = holding.acquire("job", Duration.ZERO);
			long calledAt = System.nanoTime();
			CompletableFuture<LockLease> acquired = queued(waiter, waiting, LeaseOptions.fixed(LEASE));
			beforeRelease.run();
			messages.clear();
			held.release();
			LockLease started = acquired.get(10, TimeUnit.SECONDS);
			boolean beforeTakeUp = System.nanoTime() - calledAt < TAKE_UP_NANOS;
			started.release();
			String grant = messages.poll(5, TimeUnit.SECONDS);
			assertThat(grant).isNotNull();
			if (beforeTakeUp && grant.endsWith(" " + started.fencingToken())) {
				check.execute();
				return;
			}
		}
		fail("The waiter never started on its grant's message and released it in time in " + ROUNDS + " rounds");
	}

	private RedisLockRegistry registry() {
		return testRegistry().registry();
	}

	private TestLockRegistry testRegistry() {
		return this.closer.add(TestLockRegistry.create(redis.server().uri(), LEASE));
	}

}
