package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

import dev.distlock.LockEvent;
import dev.distlock.LockLease;
import dev.distlock.LockObserver;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.RedlockSettings;
import dev.distlock.redis.connection.LockConnections;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * distlock's {@code LockRegistry} on its own Lettuce client, through Spring Data Redis,
 * or on a Redlock quorum of three nodes: the thread-owned {@code obtain(name).lock()} /
 * {@code unlock()}, the owner-free {@code acquire} / {@code release}, the read side of a
 * read/write lock, or a permit of a semaphore.
 *
 * @since 0.1.0
 */
public final class DistlockLockContender implements Contender {

	private static final Duration WAIT = Duration.ofHours(1);

	private static final String KEY_PREFIX = "dl:";

	/** The permits of the semaphores in {@link Mode#PERMIT}. */
	private static final int PERMITS = 4;

	private static final Consumer<LockEvent> NO_EVENTS = (event) -> {
	};

	private final String name;

	private final Mode mode;

	private final RedisLockRegistry registry;

	private final Runnable disconnect;

	private final LongSupplier ownRedisCpuNanos;

	private DistlockLockContender(String name, Mode mode, RedisLockRegistry registry, Runnable disconnect) {
		this(name, mode, registry, disconnect, () -> 0);
	}

	private DistlockLockContender(String name, Mode mode, RedisLockRegistry registry, Runnable disconnect,
			LongSupplier ownRedisCpuNanos) {
		this.name = name;
		this.mode = mode;
		this.registry = registry;
		this.disconnect = disconnect;
		this.ownRedisCpuNanos = ownRedisCpuNanos;
	}

	/**
	 * Connect the contender to Lettuce's own client.
	 * @param name the name in the report
	 * @param redisUri where Redis listens
	 * @param leaseTime the lease in watchdog mode
	 * @param mode what it takes
	 * @return the contender
	 */
	public static DistlockLockContender onLettuce(String name, String redisUri, Duration leaseTime, Mode mode) {
		RedisClient client = RedisClient.create(redisUri);
		return new DistlockLockContender(name, mode,
				new RedisLockRegistry(LockConnections.lettuce(client), settings(leaseTime), NO_EVENTS),
				() -> client.shutdown(0, 2, TimeUnit.SECONDS));
	}

	/**
	 * Connect the contender through Spring Data Redis, taking locks with
	 * {@code lock}/{@code unlock}.
	 * @param name the name in the report
	 * @param driver the driver under Spring Data Redis
	 * @param host Redis host
	 * @param port Redis port
	 * @param leaseTime the lease in watchdog mode
	 * @return the contender
	 */
	public static DistlockLockContender onSpringData(String name, SpringDataDriver driver, String host, int port,
			Duration leaseTime) {
		RedisConnectionFactory factory = driver.connect(host, port);
		return new DistlockLockContender(name, Mode.LOCK,
				new RedisLockRegistry(LockConnections.of(factory), settings(leaseTime), NO_EVENTS, LockObserver.NONE),
				() -> SpringDataDriver.destroy(factory));
	}

	/**
	 * Connect the contender to a Redlock quorum of three nodes, each on Lettuce's own
	 * client, all on one set of client resources, as the auto-configuration connects
	 * them: the given Redis and two {@code redis-server} processes it starts and stops
	 * itself, whose CPU time it reports ({@link #ownRedisCpuNanos()}). Returns once the
	 * quorum grants a lock, when every node has been up for a lease.
	 * @param name the name in the report
	 * @param redisUri where the first node listens
	 * @param leaseTime the lease in watchdog mode
	 * @return the contender
	 */
	public static DistlockLockContender onQuorum(String name, String redisUri, Duration leaseTime) {
		List<RedisServer> started = List.of(RedisServer.start(), RedisServer.start());
		ClientResources resources = DefaultClientResources.create();
		List<RedisClient> clients = Stream.concat(Stream.of(redisUri), started.stream().map(RedisServer::uri))
			.map((uri) -> RedisClient.create(resources, uri))
			.toList();
		RedisLockRegistry registry = new RedisLockRegistry(clients.stream().map(LockConnections::lettuce).toList(),
				new RedlockSettings(RedlockSettings.DEFAULT_DRIFT_FACTOR), settings(leaseTime), NO_EVENTS,
				LockObserver.NONE);
		List<StatefulRedisConnection<String, String>> admins = clients.subList(1, clients.size())
			.stream()
			.map(RedisClient::connect)
			.toList();
		DistlockLockContender contender = new DistlockLockContender(name, Mode.LOCK, registry, () -> {
			admins.forEach(StatefulRedisConnection::close);
			clients.forEach((client) -> client.shutdown(0, 2, TimeUnit.SECONDS));
			resources.shutdown(0, 2, TimeUnit.SECONDS);
			started.forEach(RedisServer::close);
		}, () -> admins.stream().mapToLong((admin) -> CycleCost.Clock.redisCpuNanos(admin.sync().info("cpu"))).sum());
		contender.awaitGrant(leaseTime.multipliedBy(2).plusSeconds(10));
		return contender;
	}

	/**
	 * Wait until a lock is granted, within the given time.
	 */
	private void awaitGrant(Duration bound) {
		long deadline = System.nanoTime() + bound.toNanos();
		Optional<LockLease> lease = this.registry.tryAcquire("quorum-up", Duration.ZERO);
		while (lease.isEmpty() && System.nanoTime() - deadline < 0) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
			lease = this.registry.tryAcquire("quorum-up", Duration.ZERO);
		}
		lease.orElseThrow(() -> new IllegalStateException("No Redlock grant within " + bound)).release();
	}

	private static RedisLockSettings settings(Duration leaseTime) {
		return RedisLockSettings.of(KEY_PREFIX, leaseTime).withCommandTimeout(Duration.ofSeconds(10));
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public void locked(String name, Runnable work) {
		switch (this.mode) {
			case LOCK -> Contender.runHolding(this.registry.obtain(name), work);
			case READ -> Contender.runHolding(this.registry.readWriteLock(name).readLock(), work);
			case LEASE -> runLeased(this.registry.acquire(name, WAIT), work);
			case PERMIT -> runLeased(this.registry.semaphore(name, PERMITS).acquire(WAIT), work);
		}
	}

	private static void runLeased(LockLease lease, Runnable work) {
		try (lease) {
			work.run();
		}
	}

	@Override
	public boolean reentrant() {
		return this.mode == Mode.LOCK || this.mode == Mode.READ;
	}

	@Override
	public boolean renewsHeldLocks() {
		return true;
	}

	@Override
	public Held hold(String name) {
		return this.registry.acquire(name, WAIT)::release;
	}

	@Override
	public long ownRedisCpuNanos() {
		return this.ownRedisCpuNanos.getAsLong();
	}

	@Override
	public String redisKey(String name) {
		return KEY_PREFIX + name;
	}

	@Override
	public void close() {
		this.registry.close();
		this.disconnect.run();
	}

	/**
	 * What the contender takes.
	 */
	public enum Mode {

		/** {@code obtain(name).lock()} / {@code unlock()}. */
		LOCK,

		/** {@code acquire(name, wait)} / {@code release()}. */
		LEASE,

		/** {@code readWriteLock(name).readLock().lock()} / {@code unlock()}. */
		READ,

		/** {@code semaphore(name, 4).acquire(wait)} / {@code release()}. */
		PERMIT

	}

}
