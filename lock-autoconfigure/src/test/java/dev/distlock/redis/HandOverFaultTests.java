package dev.distlock.redis;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.DistributedLockException;
import dev.distlock.FencedLock;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.observation.LockHoldContext;
import dev.distlock.observation.ObservationLockObserver;
import dev.distlock.redis.renewal.LeaseTerms;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TcpProxy;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import dev.distlock.testsupport.LettuceClients;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A lock handed over between two threads of one JVM while something goes wrong: Redis
 * lost its data or did not answer before a transfer, the waiter was interrupted after a
 * transfer took the lock for it, or the waiter's deadline passed while a transfer was on
 * its way.
 * <p>
 * Every test takes the lock on a holder thread T1 and waits for it on a waiter thread T2
 * of the same registry; T1 hands it over with the transfer script. A {@link TcpProxy}
 * with latency stretches the round trips so that T2's interrupt or deadline falls inside
 * the transfer.
 */
@Timeout(90)
class HandOverFaultTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	private static final Duration WAIT = Duration.ofSeconds(10);

	private static final String SUBSCRIBE = "dev.distlock.redis.ReleaseSignals.subscribe";

	private static final String SUBSCRIPTION_AWAIT = "dev.distlock.redis.ReleaseSignals$Subscription.await";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private TestThread holder;

	private TestThread waiter;

	private RedisCommands<String, String> commands;

	@BeforeEach
	void start() {
		this.holder = this.closer.add(TestThread.start("holder"));
		this.waiter = this.closer.add(TestThread.start("waiter"));
		this.commands = this.closer.add(RedisTestClient.connect(redis.server().uri(), COMMAND_TIMEOUT)).sync();
		// Cached scripts, so that every hand-over takes one round trip, not two
		for (LuaScript script : List.of(LuaScript.ACQUIRE, LuaScript.RELEASE, LuaScript.RENEW, LuaScript.TRANSFER)) {
			this.commands.scriptLoad(script.source());
		}
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	/**
	 * T1 holds "job", T2 waits in Redis, Redis restarts empty, T1 unlocks: the transfer
	 * must find out that Redis no longer had the lock before T2 holds anything, so T1's
	 * unlock throws and T1's hold is reported lost, to its observation too, while T2 goes
	 * on waiting and acquires the lock in Redis: its key is there when its
	 * {@code tryLock} returns, and no other process can take it.
	 */
	@Test
	void handOverAfterRedisLostTheLockReportsTheHolderLostAndTheWaiterAcquiresInRedis() throws Exception {
		TestObservationRegistry observations = TestObservationRegistry.create();
		List<Long> lossesObserved = new CopyOnWriteArrayList<>();
		observations.observationConfig().observationHandler(new ObservationHandler<LockHoldContext>() {

			@Override
			public boolean supportsContext(Observation.Context context) {
				return context instanceof LockHoldContext;
			}

			@Override
			public void onEvent(Observation.Event event, LockHoldContext context) {
				if (event.getName().equals("lost")) {
					lossesObserved.add(context.getFencingToken());
				}
			}

		});
		TestLockRegistry registry = registry(redis.server().uri(), new ObservationLockObserver(observations));
		TestLockRegistry other = registry(redis.server().uri());
		FencedLock lock = registry.registry().obtain("job");
		CompletableFuture<Boolean> waiting = new CompletableFuture<>();
		long first = holdWhileTheWaiterWaitsInRedis(lock,
				() -> lock.tryLock(Duration.ofSeconds(20)) && this.commands.exists("lock:job") == 1, waiting);
		redis.server().restart();
		await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> registry.registry().ping());
		assertThat(this.holder.run(lock::unlock)).failsWithin(WAIT)
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(LockLostException.class)
			.withMessage("Lock 'job' was lost before its release (fencing token " + first + ")");
		assertThat(waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("acquired, with its key in Redis").isTrue();
		assertThat(this.waiter.call(() -> lock.currentHold().isValid()).get(WAIT.toSeconds(), TimeUnit.SECONDS))
			.isTrue();
		await().atMost(WAIT)
			.ignoreExceptions()
			.untilAsserted(() -> assertThat(other.registry().tryAcquire("job", Duration.ZERO))
				.as("held in Redis for the waiter")
				.isEmpty());
		this.waiter.run(lock::unlock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(registry.lostEvents()).extracting(LockLostEvent::fencingToken)
				.containsExactly(first));
		assertThat(lossesObserved).as("losses told to the holds' observations").containsExactly(first);
		assertThat(observations).hasNumberOfObservationsWithNameEqualTo("distlock.hold", 2)
			.hasAnObservation((hold) -> hold.hasNameEqualTo("distlock.hold")
				.hasHighCardinalityKeyValue("fencing.token", Long.toString(first))
				.hasLowCardinalityKeyValue("result", "lost"));
	}

	/**
	 * T1 holds "job", T2 waits, Redis is paused and T1 unlocks: the transfer gets no
	 * answer within the command timeout, so T1's unlock fails and T2 gets nothing yet.
	 * Redis runs the late transfer once it goes on, which keeps the key under a token
	 * nobody holds for a whole lease; the give-back that followed it must free the lock
	 * within seconds, not a lease, and T2 then acquires it in Redis.
	 */
	@Test
	void transferThatGetsNoAnswerGivesTheLockBack() throws Exception {
		TestLockRegistry registry = this.closer.add(TestLockRegistry.create(redis.server().uri(),
				RedisLockSettings.of("lock:", LEASE).withCommandTimeout(Duration.ofMillis(500)), LockObserver.NONE));
		FencedLock lock = registry.registry().obtain("job");
		CompletableFuture<Boolean> waiting = new CompletableFuture<>();
		holdWhileTheWaiterWaitsInRedis(lock, () -> lock.tryLock(Duration.ofSeconds(20)), waiting);
		String holdersToken = this.commands.get("lock:job");
		redis.server().pause();
		try {
			assertThat(this.holder.run(lock::unlock)).failsWithin(WAIT)
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(DistributedLockException.class);
		}
		finally {
			redis.server().resume();
		}
		await().atMost(WAIT)
			.ignoreExceptions()
			.untilAsserted(() -> assertThat(this.commands.get("lock:job")).as("no longer kept under the holder's token")
				.isNotEqualTo(holdersToken));
		assertThat(waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("acquired within seconds, not a lease").isTrue();
		this.waiter.run(lock::unlock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
	}

	/**
	 * Redis forgot its scripts (a fresh or restarted server) and is paused while T1 hands
	 * "job" over to T2: the transfer's {@code EVALSHA} is answered with {@code NOSCRIPT}
	 * and the script sent again only after that reply. T2 is woken by the transfer's
	 * answer alone, so its own release never overtakes the transfer: both releases
	 * succeed and T2's fencing token is greater.
	 */
	@Test
	void handOverIsNotOvertakenByTheSuccessorsReleaseWhenRedisForgotTheScript() throws Exception {
		FencedLock lock = registry(redis.server().uri()).registry().obtain("job");
		AtomicLong successorsToken = new AtomicLong();
		CompletableFuture<Boolean> waiting = new CompletableFuture<>();
		long first = holdWhileTheWaiterWaitsInRedis(lock, () -> {
			boolean acquired = lock.tryLock(Duration.ofSeconds(20));
			successorsToken.set(lock.fencingToken());
			lock.unlock();
			return acquired;
		}, waiting);
		this.commands.scriptFlush();
		assertThat(this.commands.scriptExists(LuaScript.TRANSFER.sha1())).containsExactly(false);
		CompletableFuture<Void> unlocking;
		redis.server().pause();
		try {
			unlocking = this.holder.run(lock::unlock);
			// T1 sends the transfer, which Redis will answer with NOSCRIPT
			Thread.sleep(300);
		}
		finally {
			redis.server().resume();
		}
		unlocking.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		assertThat(waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		assertThat(successorsToken.get()).isGreaterThan(first);
	}

	/**
	 * T1 holds "job", T2 starts waiting and T1 unlocks at once: T1's transfer takes the
	 * lock for T2 and returns while T2 still waits for its {@code SUBSCRIBE} reply. T2 is
	 * interrupted there, so nobody takes the transferred lock: it must be given back
	 * rather than left in Redis for a whole lease. The window is one round trip long; a
	 * run that misses it (T2 already past its subscription) is repeated.
	 */
	@Test
	void waiterInterruptedAfterAHandOverGivesTheLockBack() throws Exception {
		TcpProxy proxy = this.closer.add(TcpProxy.start(redis.server().port()));
		TestLockRegistry rival = registry(redis.server().uri());
		boolean hit = false;
		for (int run = 0; run < 3 && !hit; run++) {
			String name = "job-" + run;
			// A registry subscribes once, when its first waiter waits
			TestLockRegistry registry = registry(proxy.uri());
			hit = interruptWaiterInItsSubscription(registry, name, proxy);
			proxy.heal();
			if (hit) {
				await().atMost(Duration.ofSeconds(5))
					.pollInterval(Duration.ofMillis(20))
					.untilAsserted(() -> assertThat(this.commands.exists("lock:" + name))
						.as("the lock handed over to the interrupted waiter is given back")
						.isZero());
				assertThat(registry.registry().heldLocks()).isEmpty();
				assertThat(rival.registry().tryAcquire(name, Duration.ZERO)).isPresent();
			}
		}
		assertThat(hit).as("the waiter was interrupted in its subscription after the hand-over").isTrue();
	}

	/**
	 * T2 waits 1.5 s for "job" in Redis; T1 unlocks through a network with 3 s round
	 * trips, so T2's deadline passes while T1's transfer is on its way. T2 must sleep
	 * until the transfer completes rather than spin, which the CPU time of its thread
	 * shows.
	 */
	@Test
	void waiterWhoseDeadlinePassesDuringAHandOverParksInsteadOfSpinning() throws Exception {
		TcpProxy proxy = this.closer.add(TcpProxy.start(redis.server().port()));
		TestLockRegistry registry = registry(proxy.uri());
		FencedLock lock = registry.registry().obtain("job");
		this.holder.run(lock::lock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		// Not measured: seeding the waiter's token generator, loading and compiling code
		handOver(registry.registry().obtain("warm-up"));
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		CompletableFuture<long[]> waiting = this.waiter.call(() -> {
			long before = threads.getCurrentThreadCpuTime();
			boolean acquired = lock.tryLock(Duration.ofMillis(1500));
			return new long[] { acquired ? 1 : 0, threads.getCurrentThreadCpuTime() - before };
		});
		this.waiter.awaitIn(SUBSCRIPTION_AWAIT, WAIT);
		proxy.setLatency(Duration.ofMillis(1500));
		CompletableFuture<Void> unlocking = this.holder.run(lock::unlock);
		long[] outcome = waiting.get(20, TimeUnit.SECONDS);
		unlocking.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		Duration cpu = Duration.ofNanos(outcome[1]);
		System.out.println("[hand-over] waiter whose deadline passed during a transfer used " + cpu.toMillis()
				+ " ms of CPU time");
		assertThat(outcome[0]).as("handed over").isOne();
		assertThat(cpu).as("CPU time of the waiter").isLessThan(Duration.ofMillis(200));
		proxy.heal();
		this.waiter.run(lock::unlock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
	}

	/**
	 * A transfer that got no answer is given back; on a pooled connection the give-back
	 * of its new token may reach Redis before the transfer itself. The transfer that
	 * arrives after it must leave the lock to its holder's token, which expires with its
	 * lease, rather than hand it to the token nobody holds.
	 */
	@Test
	void transferThatReachesRedisAfterItsGiveBackLeavesTheLockAlone() {
		RedisClient client = RedisClient.create(redis.server().uri());
		this.closer.add(() -> LettuceClients.shutdown(client));
		RedisLockCommands lockCommands = this.closer.add(TestLockRegistry.commands(client));
		LockId id = new LockId(LockName.of("handed"), "lock:handed");
		LeaseTerms terms = new LeaseTerms(LEASE.toMillis(), 0);
		assertThat(lockCommands.await(lockCommands.acquire(id, "holder", terms, Queueing.NONE), "acquire").reply())
			.isPositive();
		lockCommands.giveBack(id, "next", terms);
		assertThat(lockCommands.await(lockCommands.transfer(id, "holder", terms, "next", terms, "waiter"), "transfer")
			.reply()).isZero();
		assertThat(this.commands.get("lock:handed")).isEqualTo("holder");
	}

	/**
	 * Hand the lock over from the holder to the waiter without a fault, and release it.
	 */
	private void handOver(FencedLock lock) throws Exception {
		this.holder.run(lock::lock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		CompletableFuture<Boolean> waiting = this.waiter.call(() -> lock.tryLock(WAIT));
		this.waiter.awaitIn(SUBSCRIPTION_AWAIT, WAIT);
		this.holder.run(lock::unlock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		assertThat(waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		this.waiter.run(lock::unlock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
	}

	/**
	 * Run the interrupt scenario with a registry whose waiters never waited (a registry
	 * that subscribed once keeps its subscription, which leaves no round trip to
	 * interrupt).
	 * @return whether T2 was interrupted in its subscription and failed
	 */
	private boolean interruptWaiterInItsSubscription(TestLockRegistry registry, String name, TcpProxy proxy)
			throws Exception {
		FencedLock lock = registry.registry().obtain(name);
		this.holder.run(lock::lock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		proxy.setLatency(Duration.ofMillis(500));
		CompletableFuture<Boolean> waiting = this.waiter.call(() -> lock.tryLock(WAIT));
		this.waiter.awaitIn("dev.distlock.redis.RedisAcquirer.attempt", WAIT);
		this.holder.run(lock::unlock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		await().atMost(WAIT)
			.pollInterval(Duration.ofMillis(1))
			.until(() -> waiting.isDone() || this.waiter.isIn(SUBSCRIBE));
		boolean subscribing = this.waiter.isIn(SUBSCRIBE);
		if (subscribing) {
			this.waiter.interrupt();
		}
		try {
			assertThat(waiting.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS)).isTrue();
		}
		catch (ExecutionException ex) {
			assertThat(subscribing).as("failed only when interrupted").isTrue();
			assertThat(ex.getCause()).isInstanceOf(DistributedLockException.class);
			return true;
		}
		System.out.println("[hand-over] waiter of '" + name + "' was already past its subscription; again");
		proxy.heal();
		this.waiter.run(lock::unlock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		return false;
	}

	/**
	 * Have T1 acquire the lock and T2 start the given acquisition, which waits in Redis.
	 * @param waiting completed with T2's acquisition
	 * @return T1's fencing token
	 */
	private long holdWhileTheWaiterWaitsInRedis(FencedLock lock, Callable<Boolean> acquisition,
			CompletableFuture<Boolean> waiting) throws Exception {
		this.holder.run(lock::lock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		this.waiter.call(acquisition).whenComplete((acquired, ex) -> {
			if (ex != null) {
				waiting.completeExceptionally(ex);
			}
			else {
				waiting.complete(acquired);
			}
		});
		this.waiter.awaitIn(SUBSCRIPTION_AWAIT, WAIT);
		return this.holder.call(lock::fencingToken).get(WAIT.toSeconds(), TimeUnit.SECONDS);
	}

	private TestLockRegistry registry(String uri) {
		return registry(uri, LockObserver.NONE);
	}

	private TestLockRegistry registry(String uri, LockObserver observer) {
		return this.closer.add(TestLockRegistry.create(uri,
				RedisLockSettings.of("lock:", LEASE).withCommandTimeout(COMMAND_TIMEOUT), observer));
	}

}
