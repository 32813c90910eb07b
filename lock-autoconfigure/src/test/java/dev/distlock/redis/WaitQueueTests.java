package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockLease;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.RivalJvm;
import dev.distlock.testsupport.TcpProxy;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static dev.distlock.redis.CrossProcessLockTests.RIVAL_REPLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The wait queue of a lock in Redis, with waiters in rival JVMs ({@link LockWorkerMain})
 * that die, pause and give up while queued: a grant to a waiter that cannot take it up
 * costs the others about the claim time and a re-check, never a lease, and a lock that is
 * free while others wait goes to the first of them, not to a newcomer.
 */
@Timeout(120)
class WaitQueueTests {

	/** Far longer than anything these tests wait for, so that no lease runs out. */
	private static final Duration LEASE = Duration.ofSeconds(60);

	/** The claim time, a re-check and a generous margin for a busy machine. */
	private static final Duration WITHIN_A_RECHECK = Duration.ofMillis(RedisAcquirer.CLAIM_MILLIS)
		.plusMillis(RedisAcquirer.RECHECK_MILLIS)
		.plusSeconds(8);

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

	private RedisLockRegistry registry() {
		return this.closer.add(TestLockRegistry.create(redis.server().uri(), LEASE)).registry();
	}

}
