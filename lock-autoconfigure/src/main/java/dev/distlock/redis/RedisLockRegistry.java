package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.distlock.DistributedSemaphore;
import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.HeldLock;
import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.Leadership;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockIntrospector;
import dev.distlock.LockEvent;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.LockRegistry;
import dev.distlock.leader.LockLeadership;
import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.connection.LockConnections;

import org.springframework.util.Assert;

/**
 * {@link LockRegistry} on Redis, through a {@link LockConnection}: Lettuce's own client
 * or any Spring Data Redis connection factory, as {@link LockConnections} makes it.
 *
 * <p>
 * Threads of this JVM that want the same lock queue in the JVM, so that one at a time
 * waits in Redis, and locks in watchdog mode are renewed until released (see
 * {@link RegistryEngine}). A lost lock is logged and reported to the event listener (the
 * application's event publisher in a Spring application) once, and so is each renewal
 * that failed with time left on the lease. Events reach the listener in order on the
 * registry's own thread ({@code distlock-events}), after the change they tell of, never
 * on a thread of the engine and never under its locks: a listener never delays a renewal
 * or a release.
 *
 * <p>
 * A lock is also the write side of the read/write lock of its name
 * ({@link #readWriteLock(String)}), whose readers hold shares in a set beside the lock
 * key, taken and released by scripts of their own ({@link SharedAttempt}); the lock
 * scripts wait for those shares.
 *
 * @since 0.1.0
 */
public class RedisLockRegistry implements LockRegistry, LockIntrospector, AutoCloseable {

	private final RegistryEngine engine;

	private final Map<LockName, LockLeadership> leaderships = new ConcurrentHashMap<>();

	private final AtomicBoolean closed = new AtomicBoolean();

	/**
	 * Create a registry on the given connection.
	 * @param connection the connection to Redis, as {@link LockConnections} makes it;
	 * closed with the registry
	 * @param settings how to take and keep locks
	 * @param eventListener told of every lost lock and every renewal that failed with
	 * time left, such as an {@code ApplicationEventPublisher}
	 */
	public RedisLockRegistry(LockConnection connection, RedisLockSettings settings,
			Consumer<? super LockEvent> eventListener) {
		this(connection, settings, eventListener, LockObserver.NONE);
	}

	/**
	 * Create a registry on the given connection, observed for metrics.
	 * @param connection the connection to Redis, as {@link LockConnections} makes it;
	 * closed with the registry
	 * @param settings how to take and keep locks
	 * @param eventListener told of every lost lock and every renewal that failed with
	 * time left, such as an {@code ApplicationEventPublisher}
	 * @param observer told of every wait for a lock and of what became of every hold
	 */
	public RedisLockRegistry(LockConnection connection, RedisLockSettings settings,
			Consumer<? super LockEvent> eventListener, LockObserver observer) {
		this(new RedisLockCommands(notNull(connection, "connection"), notNull(settings, "settings"), Duration.ZERO),
				settings, eventListener, observer);
	}

	/**
	 * Create a registry on a quorum of independent Redis nodes (Redlock), observed for
	 * metrics: a lock is held once a majority of the nodes granted it within its lease,
	 * with a fencing token greater than every token a majority issued for it before.
	 * Locks and leases work as on one Redis; read/write locks and semaphores are not
	 * offered and throw {@link UnsupportedOperationException}.
	 * @param nodes the connections to the nodes, as {@link LockConnections} makes them,
	 * one per node, each on a single Redis primary; closed with the registry
	 * @param redlock how the quorum allows for clock drift
	 * @param settings how to take and keep locks; no replicas to acknowledge
	 * @param eventListener told of every lost lock and every renewal that failed with
	 * time left, such as an {@code ApplicationEventPublisher}
	 * @param observer told of every wait for a lock, of what became of every hold and of
	 * each node's reply to every attempt to take a lock
	 */
	public RedisLockRegistry(List<LockConnection> nodes, RedlockSettings redlock, RedisLockSettings settings,
			Consumer<? super LockEvent> eventListener, LockObserver observer) {
		this(new RedlockCommands(notEmpty(nodes), notNull(redlock, "redlock"), forRedlock(settings),
				notNull(observer, "observer")), settings, eventListener, observer);
	}

	private RedisLockRegistry(RedisLockCommands commands, RedisLockSettings settings,
			Consumer<? super LockEvent> eventListener, LockObserver observer) {
		Assert.notNull(eventListener, "'eventListener' must not be null");
		Assert.notNull(observer, "'observer' must not be null");
		this.engine = new RegistryEngine(commands, settings, eventListener, observer);
	}

	private static <T> T notNull(T argument, String name) {
		Assert.notNull(argument, () -> "'" + name + "' must not be null");
		return argument;
	}

	private static List<LockConnection> notEmpty(List<LockConnection> nodes) {
		Assert.notEmpty(nodes, "'nodes' must not be empty");
		return nodes;
	}

	private static RedisLockSettings forRedlock(RedisLockSettings settings) {
		Assert.notNull(settings, "'settings' must not be null");
		Assert.isTrue(settings.replicasToAck() == 0,
				"A quorum of independent nodes (distlock.redlock.nodes) waits for no replicas: "
						+ "remove distlock.redis.replicas-to-ack");
		return settings;
	}

	/**
	 * Return the failure of a primitive that a quorum of independent nodes does not
	 * offer.
	 * @param what the primitive
	 */
	static UnsupportedOperationException notOnRedlock(String what) {
		return new UnsupportedOperationException("Redlock (distlock.redlock.nodes) does not offer " + what
				+ ": only locks and leases are taken on a quorum of nodes; use them, or remove distlock.redlock.nodes"
				+ " to lock on one Redis");
	}

	@Override
	public FencedLock obtain(String name, LeaseOptions options) {
		return obtain(LockName.of(name), options);
	}

	@Override
	public FencedLock obtain(LockName name, LeaseOptions options) {
		Assert.notNull(options, "'options' must not be null");
		return new RedisFencedLock(this.engine, this.engine.checked(name), options, HoldKind.EXCLUSIVE);
	}

	@Override
	public FencedReadWriteLock readWriteLock(String name) {
		return readWriteLock(LockName.of(name));
	}

	@Override
	public FencedReadWriteLock readWriteLock(LockName name) {
		this.engine.requireSharedHolds("read/write locks");
		return new RedisReadWriteLock(this.engine, this.engine.checked(name));
	}

	/**
	 * Return the semaphore of the given name, taking at most the given number of permits
	 * at once. A semaphore is not a lock: give it a name that no lock and no read/write
	 * lock uses, since they would share its wait queue.
	 * @throws IllegalArgumentException if the name is not a valid lock name or the
	 * permits are fewer than one
	 */
	@Override
	public DistributedSemaphore semaphore(String name, int permits) {
		return semaphore(LockName.of(name), permits);
	}

	/**
	 * Return the semaphore of the given name, taking at most the given number of permits
	 * at once, like {@link #semaphore(String, int)}.
	 * @throws IllegalArgumentException if the permits are fewer than one
	 */
	@Override
	public DistributedSemaphore semaphore(LockName name, int permits) {
		this.engine.requireSharedHolds("semaphores");
		return new RedisSemaphore(this.engine, this.engine.checked(name), permits);
	}

	@Override
	public Optional<LockLease> tryAcquire(String name, Duration waitTime, LeaseOptions options) {
		return tryAcquire(LockName.of(name), waitTime, options);
	}

	@Override
	public Optional<LockLease> tryAcquire(LockName name, Duration waitTime, LeaseOptions options) {
		LockId id = this.engine.checked(name);
		Assert.notNull(options, "'options' must not be null");
		try {
			return this.engine.leaseOf(this.engine.holds.acquireLock(id, waitTime, options));
		}
		catch (InterruptedException ex) {
			throw interrupted(name.value(), ex);
		}
	}

	@Override
	public Optional<Duration> remainingLease(String name) {
		return remainingLease(LockName.of(name));
	}

	@Override
	public Optional<Duration> remainingLease(LockName name) {
		return this.engine.operations.remainingLease(this.engine.checked(name));
	}

	@Override
	public Leadership leadership(String name) {
		LockId id = this.engine.checked(LockName.of(name));
		return this.leaderships.computeIfAbsent(id.name,
				(key) -> new LockLeadership(this, id.name, id.key, this.engine.leaseTime, this.engine.events));
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.engine.active.list();
	}

	@Override
	public List<Leadership> leaderships() {
		return LockLeadership.running(this.leaderships.values());
	}

	@Override
	public OptionalLong forceRelease(String name) {
		return this.engine.operations.forceRelease(this.engine.checked(LockName.of(name)));
	}

	@Override
	public void ping() {
		this.engine.operations.ping();
	}

	@Override
	public List<String> pingNodes() {
		return this.engine.operations.pingNodes();
	}

	/**
	 * Return how often the watchdog renews leases: a third of the lease time.
	 * @return the renewal period
	 */
	@Override
	public Duration renewalPeriod() {
		return this.engine.active.renewal().period();
	}

	@Override
	public Duration renewalDelay() {
		return this.engine.active.renewal().delay();
	}

	/**
	 * Renew every held lock in watchdog mode now, rather than at the next period.
	 */
	public void renewLeases() {
		this.engine.active.renewal().renewNow();
	}

	/**
	 * Stop the leaderships, releasing their locks; release every other hold still held,
	 * reporting it lost first, since its owner may still be running; stop renewing and
	 * watching leases and close the connections; deliver the events published so far,
	 * waiting for the event listener at most a lease (unless the listener itself closes
	 * the registry). Calls after the first do nothing.
	 */
	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			this.leaderships.values().forEach(LockLeadership::stop);
			this.engine.close("the registry was closed while it was held, and released it so that the next"
					+ " holder need not wait for its lease");
		}
	}

	/**
	 * Return the engine behind this registry.
	 */
	RegistryEngine engine() {
		return this.engine;
	}

	static LockAcquisitionException interrupted(String name, InterruptedException ex) {
		Thread.currentThread().interrupt();
		return new LockAcquisitionException(name, "Interrupted while waiting for lock '" + name + "'", ex);
	}

}
