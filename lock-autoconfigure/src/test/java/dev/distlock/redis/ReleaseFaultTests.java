package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockObserver;
import dev.distlock.redis.connection.LockConnections;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TcpProxy;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import dev.distlock.testsupport.LettuceClients;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import redis.clients.jedis.Jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Releases and renewals that something gets in the way of: a pending interrupt, an
 * interrupt while a release waits for Redis or for a pooled connection, a renewal that
 * reaches Redis after a release that keeps the key for its minimum hold time, a loss
 * listener that throws an {@link Error} in the watchdog's thread.
 */
@Timeout(60)
class ReleaseFaultTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration WAIT = Duration.ofSeconds(10);

	/** Where a release waits for Redis on a driver whose calls return when answered. */
	private static final String SENDING_THE_RELEASE = "dev.distlock.redis.RedisLockCommands.release";

	/** Where a release waits for Redis' answer on Lettuce's own client. */
	private static final String AWAITING_THE_RELEASE = "dev.distlock.redis.RedisLockCommands.awaitUninterruptibly";

	/** Where a command of a pooled Jedis factory waits for a connection of the pool. */
	private static final String BORROWING = "org.apache.commons.pool2.impl.GenericObjectPool.borrowObject";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private RedisCommands<String, String> commands;

	private TestThread releasing;

	private TcpProxy proxy;

	@BeforeEach
	void connect() {
		this.commands = this.closer.add(RedisTestClient.connect(redis.server().uri(), COMMAND_TIMEOUT)).sync();
		this.releasing = this.closer.add(TestThread.start("releasing"));
		this.proxy = this.closer.add(TcpProxy.start(redis.server().port()));
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	/**
	 * A thread with its interrupt flag set unlocks a lock and releases a lease, through a
	 * network with 100 ms latency so that Redis' reply is not there yet when the release
	 * starts waiting for it. Both must reach Redis and return normally, and the flag must
	 * still be set afterwards for the application to see, on every driver.
	 */
	@ParameterizedTest
	@EnumSource(TestDriver.class)
	void pendingInterruptNeitherFailsNorHaltsARelease(TestDriver driver) throws Exception {
		RedisLockRegistry registry = registry(driver, this.proxy.uri(), LEASE);
		FencedLock lock = registry.obtain("order");
		LockLease lease = registry.acquire("report", Duration.ZERO);
		this.releasing.run(lock::lock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		this.proxy.setLatency(Duration.ofMillis(100));
		CompletableFuture<Boolean> interruptedAfterwards = releaseAndTellTheInterruptFlag(() -> {
			Thread.currentThread().interrupt();
			lock.unlock();
			lease.release();
		});
		assertThat(interruptedAfterwards.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("interrupt flag kept").isTrue();
		assertThat(this.commands.exists("lock:order", "lock:report")).as("both released in Redis").isZero();
		assertThat(registry.heldLocks()).isEmpty();
	}

	/**
	 * A thread releases a lease while its connection to Redis stalls, and is interrupted
	 * while it waits for Redis' reply. Once the connection heals, the release must return
	 * normally, the key must be gone and the interrupt flag still set, on every driver.
	 */
	@ParameterizedTest
	@EnumSource(TestDriver.class)
	void interruptWhileAReleaseWaitsForRedisNeitherFailsNorHaltsIt(TestDriver driver) throws Exception {
		LockLease lease = registry(driver, this.proxy.uri(), LEASE).acquire("report", Duration.ZERO);
		this.proxy.stall();
		CompletableFuture<Boolean> interruptedAfterwards = releaseAndTellTheInterruptFlag(lease::release);
		await().atMost(WAIT)
			.pollInterval(Duration.ofMillis(5))
			.until(() -> this.releasing.isIn(SENDING_THE_RELEASE) || this.releasing.isIn(AWAITING_THE_RELEASE));
		this.releasing.interrupt();
		this.proxy.heal();
		assertThat(interruptedAfterwards.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("interrupt flag kept").isTrue();
		assertThat(this.commands.exists("lock:report")).as("released in Redis").isZero();
	}

	/**
	 * On a pooled Jedis factory, which runs a platform thread's commands on that thread,
	 * a thread releases a lease while the pool's only connection is lent elsewhere, and
	 * is interrupted while it waits to borrow it. Once the connection is given back, the
	 * release must reach Redis and return normally, with the interrupt flag still set.
	 */
	@Test
	void interruptWhileAReleaseWaitsForAPooledConnectionNeitherFailsNorHaltsIt() throws Exception {
		GenericObjectPoolConfig<Jedis> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(1);
		JedisConnectionFactory factory = new JedisConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", redis.server().port()),
				JedisClientConfiguration.builder().readTimeout(COMMAND_TIMEOUT).usePooling().poolConfig(pool).build());
		factory.afterPropertiesSet();
		factory.start();
		this.closer.add(factory::destroy);
		RedisLockRegistry registry = this.closer.add(new RedisLockRegistry(LockConnections.of(factory),
				RedisLockSettings.of("lock:", LEASE).withCommandTimeout(COMMAND_TIMEOUT), (event) -> {
				}, LockObserver.NONE));
		LockLease lease = registry.acquire("report", Duration.ZERO);
		TestThread lending = this.closer.add(TestThread.start("lending"));
		CompletableFuture<?> lent = lending.call(() -> {
			try (RedisConnection connection = factory.getConnection()) {
				return connection.listCommands().bLPop((int) WAIT.toSeconds(), "lent".getBytes());
			}
		});
		await().atMost(WAIT).until(() -> this.commands.clientList().contains("cmd=blpop"));
		CompletableFuture<Boolean> interruptedAfterwards = releaseAndTellTheInterruptFlag(lease::release);
		await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> this.releasing.isIn(BORROWING));
		this.releasing.interrupt();
		this.commands.lpush("lent", "given back");
		lent.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		assertThat(interruptedAfterwards.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("interrupt flag kept").isTrue();
		assertThat(this.commands.exists("lock:report")).as("released in Redis").isZero();
	}

	/**
	 * A lease with a minimum hold time of 2 s is released at once, so Redis keeps its key
	 * for 2 s. A renewal of the lease that the watchdog sent before the release and that
	 * arrives after it (sent here by hand, with the lease's token) must not extend it to
	 * a full lease again.
	 */
	@Test
	void renewalSentBeforeAMinHoldReleaseCannotExtendIt() {
		RedisLockRegistry registry = registry(redis.server().uri(), LEASE);
		LockLease lease = registry
			.tryAcquire("nightly", Duration.ZERO, LeaseOptions.WATCHDOG.withMinHoldTime(Duration.ofSeconds(2)))
			.orElseThrow();
		String token = this.commands.get("lock:nightly");
		lease.release();
		List<Long> renewed = this.commands.eval(LuaScript.RENEW.source(), ScriptOutputType.MULTI,
				new String[] { "lock:nightly", LockKeys.fenceKey("lock:nightly") }, Long.toString(LEASE.toMillis()),
				Long.toString(LEASE.toMillis()), "0", token);
		assertThat(renewed).as("renewal after the release").containsExactly(0L);
		assertThat(this.commands.pttl("lock:nightly")).as("kept for the minimum hold time only").isBetween(1L, 2_000L);
	}

	/**
	 * 2,000 leases with a minimum hold time of 2 s are taken and released one after the
	 * other while another thread runs the watchdog's renewal round again and again, so
	 * that renewals and releases race. Afterwards no key may be kept longer than the
	 * minimum hold time.
	 */
	@Test
	void renewalsRacingMinHoldReleasesNeverKeepAKeyLongerThanTheMinHoldTime() throws Exception {
		RedisLockRegistry registry = registry(redis.server().uri(), LEASE);
		LeaseOptions minHold = LeaseOptions.WATCHDOG.withMinHoldTime(Duration.ofSeconds(2));
		AtomicBoolean releasing = new AtomicBoolean(true);
		CompletableFuture<Void> renewing = CompletableFuture.runAsync(() -> {
			while (releasing.get()) {
				registry.renewLeases();
			}
		});
		try {
			for (int i = 0; i < 2_000; i++) {
				registry.tryAcquire("batch-" + i, Duration.ZERO, minHold).orElseThrow().release();
			}
		}
		finally {
			releasing.set(false);
		}
		renewing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		List<String> extended = this.commands.keys("lock:batch-*")
			.stream()
			.filter((key) -> this.commands.pttl(key) > 2_000)
			.toList();
		assertThat(extended).as("keys renewed after their release").isEmpty();
	}

	/**
	 * The watchdog renews leases "a" and "b" every 200 ms. Another owner takes "a": the
	 * watchdog reports it to a loss listener that throws an {@link AssertionError}. Then
	 * another owner takes "b": the watchdog must still be running to report that too.
	 */
	@Test
	void errorThrownByALossListenerDoesNotStopTheWatchdog() {
		RedisClient client = RedisClient.create(redis.server().uri());
		this.closer.add(() -> LettuceClients.shutdown(client));
		List<String> lost = new CopyOnWriteArrayList<>();
		RedisLockRegistry registry = this.closer.add(new RedisLockRegistry(LockConnections.lettuce(client),
				RedisLockSettings.of("lock:", Duration.ofMillis(600)).withCommandTimeout(COMMAND_TIMEOUT), (event) -> {
					lost.add(event.name());
					throw new AssertionError("Loss listener failed for lock '" + event.name() + "'");
				}));
		registry.acquire("a", Duration.ZERO);
		registry.acquire("b", Duration.ZERO);
		this.commands.set("lock:a", "someone-else");
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(lost).containsExactly("a"));
		this.commands.set("lock:b", "someone-else");
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(lost).as("reported after the listener failed").containsExactly("a", "b"));
	}

	/**
	 * Run releases on the releasing thread.
	 * @return whether the thread's interrupt flag was set once they returned
	 */
	private CompletableFuture<Boolean> releaseAndTellTheInterruptFlag(Runnable releases) {
		return this.releasing.call(() -> {
			releases.run();
			return Thread.currentThread().isInterrupted();
		});
	}

	private RedisLockRegistry registry(String uri, Duration leaseTime) {
		return registry(TestDriver.LETTUCE, uri, leaseTime);
	}

	private RedisLockRegistry registry(TestDriver driver, String uri, Duration leaseTime) {
		return this.closer
			.add(TestLockRegistry.create(driver, uri,
					RedisLockSettings.of("lock:", leaseTime).withCommandTimeout(COMMAND_TIMEOUT)))
			.registry();
	}

}
