package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.distlock.DistributedLockException;
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
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.LockRegistry;
import dev.distlock.leader.LeadershipEvents;
import dev.distlock.leader.LockLeadership;
import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.connection.LockConnections;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * {@link LockRegistry} on Redis, through a {@link LockConnection}: Lettuce's own client
 * or any Spring Data Redis connection factory, as {@link LockConnections} makes it.
 *
 * <p>
 * Acquiring runs one script ({@code SET key token NX PX lease} plus {@code INCRBY} of the
 * fencing key); releasing runs one script that deletes the key only while it holds the
 * caller's token and publishes a release signal. Threads of this JVM that want the same
 * lock queue on a local fair permit, so only one of them at a time tries and waits in
 * Redis ({@link RedisAcquirer}); that one sleeps until a release signal arrives or the
 * holder's lease would have run out, or takes the lock straight from a releasing holder
 * of this JVM. Held locks in watchdog mode are renewed by a
 * {@link dev.distlock.redis.renewal.LeaseRenewal}. A lost lock is logged and reported to
 * the event listener (the application's event publisher in a Spring application) once,
 * and so is each renewal that failed with time left on the lease. Events reach the
 * listener in order on the registry's own thread ({@code distlock-events}), after the
 * change they tell of, never on a thread of the engine and never under its locks: a
 * listener never delays a renewal or a release.
 *
 * <p>
 * A lock is also the write side of the read/write lock of its name
 * ({@link #readWriteLock(String)}), whose readers hold shares in a set beside the lock
 * key, taken and released by scripts of their own ({@link SharedAcquisition}); the lock
 * scripts wait for those shares.
 *
 * @since 0.1.0
 */
public class RedisLockRegistry implements LockRegistry, LockIntrospector, AutoCloseable {

	private final RedisLockCommands commands;

	private final ReleaseSignals signals;

	private final RedisAcquirer acquirer;

	private final LockKeys keys;

	private final LocalLocks locks;

	private final ActiveHolds active;

	private final HoldRelease release;

	private final HoldExtension extension;

	private final LockObserver observer;

	private final OwnedHolds owned = new OwnedHolds("Lock");

	private final OwnedHolds ownedReads = new OwnedHolds("Read lock");

	private final LockEventPublisher events;

	private final LeadershipEvents leadershipEvents;

	private final Duration leaseTime;

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
		this(new RedisLockCommands(notNull(connection, "connection"), notNull(settings, "settings")), settings,
				eventListener, observer);
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
	 * @param observer told of every wait for a lock and of what became of every hold
	 */
	public RedisLockRegistry(List<LockConnection> nodes, RedlockSettings redlock, RedisLockSettings settings,
			Consumer<? super LockEvent> eventListener, LockObserver observer) {
		this(new RedlockCommands(notEmpty(nodes), notNull(redlock, "redlock"), forRedlock(settings)), settings,
				eventListener, observer);
	}

	private RedisLockRegistry(RedisLockCommands commands, RedisLockSettings settings,
			Consumer<? super LockEvent> eventListener, LockObserver observer) {
		Assert.notNull(eventListener, "'eventListener' must not be null");
		Assert.notNull(observer, "'observer' must not be null");
		this.observer = observer;
		this.commands = commands;
		this.signals = new ReleaseSignals(this.commands, settings.keyPrefix());
		this.acquirer = new RedisAcquirer(this.commands, this.signals, settings);
		this.keys = new LockKeys(settings.keyPrefix());
		this.locks = new LocalLocks();
		this.events = new LockEventPublisher(eventListener, settings.leaseTime());
		this.active = new ActiveHolds(this.commands, settings.leaseTime(), this.events);
		this.leadershipEvents = new RedisLeadershipEvents(this.events, observer);
		this.leaseTime = settings.leaseTime();
		this.release = new HoldRelease(this.commands, new HandOver(this.commands, this.signals, this.ownedReads),
				this.signals, this.locks, this.active);
		this.extension = new HoldExtension(this.commands, this.active);
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
	 * Throw when this registry locks on a quorum of independent nodes, which do not keep
	 * shared holds.
	 * @param what the primitive asked for
	 */
	private void requireSharedHolds(String what) {
		if (this.commands instanceof RedlockCommands) {
			throw notOnRedlock(what);
		}
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
		return new RedisFencedLock(this, checked(name), options, HoldKind.EXCLUSIVE);
	}

	@Override
	public FencedReadWriteLock readWriteLock(String name) {
		return readWriteLock(LockName.of(name));
	}

	@Override
	public FencedReadWriteLock readWriteLock(LockName name) {
		requireSharedHolds("read/write locks");
		return new RedisReadWriteLock(this, checked(name));
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
		requireSharedHolds("semaphores");
		LockId id = checked(name);
		Assert.isTrue(permits >= 1,
				() -> "Semaphore '" + name + "' must have at least 1 permit, but was given " + permits);
		return new RedisSemaphore(this, id, permits);
	}

	@Override
	public Optional<LockLease> tryAcquire(String name, Duration waitTime, LeaseOptions options) {
		return tryAcquire(LockName.of(name), waitTime, options);
	}

	@Override
	public Optional<LockLease> tryAcquire(LockName name, Duration waitTime, LeaseOptions options) {
		LockId id = checked(name);
		Assert.notNull(options, "'options' must not be null");
		try {
			return leaseOf(acquireHold(id, waitTime, options));
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
		LockId id = checked(name);
		long millis = this.commands.await(this.commands.lockState(id), "read the lease of lock '" + name + "'");
		return (millis >= 0) ? Optional.of(Duration.ofMillis(millis)) : Optional.empty();
	}

	@Override
	public Leadership leadership(String name) {
		LockId id = checked(LockName.of(name));
		return this.leaderships.computeIfAbsent(id.name,
				(key) -> new LockLeadership(this, id.name, id.key, this.leaseTime, this.leadershipEvents));
	}

	@Override
	public List<HeldLock> heldLocks() {
		return this.active.list();
	}

	@Override
	public List<Leadership> leaderships() {
		return LockLeadership.running(this.leaderships.values());
	}

	@Override
	public OptionalLong forceRelease(String name) {
		LockId id = checked(LockName.of(name));
		long lastToken = this.commands.awaitUninterruptibly(this.commands.forceRelease(id),
				"force-release lock '" + id.name + "'");
		return (lastToken >= 0) ? OptionalLong.of(lastToken) : OptionalLong.empty();
	}

	@Override
	public void ping() {
		this.commands.await(this.commands.ping(), "answer PING");
	}

	@Override
	public List<String> pingNodes() {
		return this.commands.pingNodes().stream().map((reply) -> {
			try {
				this.commands.await(reply, "answer PING");
				return "UP";
			}
			catch (DistributedLockException ex) {
				return "DOWN: " + ex.getMessage();
			}
		}).toList();
	}

	/**
	 * Return how often the watchdog renews leases: a third of the lease time.
	 * @return the renewal period
	 */
	@Override
	public Duration renewalPeriod() {
		return this.active.renewal().period();
	}

	@Override
	public Duration renewalDelay() {
		return this.active.renewal().delay();
	}

	/**
	 * Renew every held lock in watchdog mode now, rather than at the next period.
	 */
	public void renewLeases() {
		this.active.renewal().renewNow();
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
			this.release.releaseHeld("the registry was closed while it was held, and released it so that the next"
					+ " holder need not wait for its lease");
			this.active.close();
			this.signals.close();
			this.commands.close();
			this.events.close();
		}
	}

	/**
	 * Acquire a hold of one side of a lock for the current thread, reentering a hold of
	 * that side it already owns without a round trip.
	 * @throws LockLostException if the thread owns a hold of that side known lost: it is
	 * not re-entered, and the thread must unlock it first
	 * @param side {@link HoldKind#EXCLUSIVE} for the lock (the write side of the
	 * read/write lock of its name), {@link HoldKind#READ_SHARE} for the read side
	 * @throws IllegalMonitorStateException if the thread holds the read side and asks for
	 * the write side, which would wait for its own read share
	 */
	boolean lockOwned(LockId id, HoldKind side, Duration waitTime, LeaseOptions options) throws InterruptedException {
		OwnedHolds holds = owned(side);
		if (holds.reenter(id.name)) {
			return true;
		}
		RedisHold hold = (side == HoldKind.READ_SHARE) ? acquireRead(id, waitTime)
				: acquireWrite(id, waitTime, options);
		if (hold == null) {
			return false;
		}
		holds.add(hold);
		return true;
	}

	/**
	 * Leave one hold of one side of a lock of the current thread, releasing it when it
	 * was the outermost.
	 * @throws IllegalMonitorStateException if the current thread does not hold it
	 */
	void unlockOwned(HoldKind side, LockName name) {
		RedisHold hold = owned(side).leave(name);
		if (hold != null) {
			release(hold);
		}
	}

	/**
	 * Return the holds of one side that the current thread owns through
	 * {@link RedisFencedLock}s: its locks, or its read shares.
	 */
	OwnedHolds owned(HoldKind side) {
		return (side == HoldKind.READ_SHARE) ? this.ownedReads : this.owned;
	}

	/**
	 * Take a read share for the current thread: at once when the thread holds the write
	 * side (a downgrade), otherwise once no writer holds or waits for the lock before it.
	 */
	private @Nullable RedisHold acquireRead(LockId id, Duration waitTime) throws InterruptedException {
		RedisHold write = this.owned.find(id.name);
		return acquireShared(SharedAttempt.read(id, (write != null) ? write.token : ""), waitTime);
	}

	/**
	 * Take the lock (the write side) for the current thread, unless the thread holds the
	 * read side: the lock would wait for the thread's own read share.
	 */
	private @Nullable RedisHold acquireWrite(LockId id, Duration waitTime, LeaseOptions options)
			throws InterruptedException {
		if (this.ownedReads.find(id.name) != null) {
			throw new IllegalMonitorStateException("Thread '" + Thread.currentThread().getName()
					+ "' holds the read lock of '" + id.name + "' and cannot take its write lock, which would wait "
					+ "for its own read share: a read lock cannot be upgraded; release it first");
		}
		return acquireHold(id, waitTime, options);
	}

	/**
	 * Take a shared hold (a read share, a semaphore permit), tracked for renewal, listing
	 * and loss reporting like a lock's, and told to the observer.
	 * @param attempt the script that tries, and its arguments
	 * @param waitTime how long to wait; zero tries once
	 * @return the hold, to be given to {@link #release(RedisHold)}, or {@code null} if
	 * not taken in time
	 * @see RedisAcquirer
	 */
	@Nullable RedisHold acquireShared(SharedAttempt attempt, Duration waitTime) throws InterruptedException {
		Assert.isTrue(!waitTime.isNegative(), () -> "Wait time of '" + attempt.id().name + "' must not be negative");
		LockObserver.Wait wait = this.observer.waitStarted(attempt.id().name);
		RedisHold hold;
		try {
			hold = this.acquirer.acquire(attempt, Deadline.after(waitTime));
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			wait.failed(ex);
			throw ex;
		}
		track(hold, wait);
		return hold;
	}

	/**
	 * Return an owner-free lease of a hold, released through this registry.
	 * @param hold the hold, or {@code null} when none was taken
	 * @return the lease, or empty
	 */
	Optional<LockLease> leaseOf(@Nullable RedisHold hold) {
		return Optional.ofNullable(hold).map((held) -> lease(held, () -> release(held)));
	}

	/**
	 * Return a lease view of a hold, extended through this registry.
	 * @param hold the hold
	 * @param releaseAction run by the lease's first release
	 * @return the lease
	 */
	LockLease lease(RedisHold hold, Runnable releaseAction) {
		return new RedisLockLease(hold, releaseAction, this.extension);
	}

	/**
	 * Return the lock of the given name, checked: a name whose key leaves room for the
	 * lock's helper keys in its Cluster slot.
	 */
	LockId checked(LockName name) {
		Assert.notNull(name, "'name' must not be null");
		return new LockId(name, this.keys.lockKey(name.value()));
	}

	static LockAcquisitionException interrupted(String name, InterruptedException ex) {
		Thread.currentThread().interrupt();
		return new LockAcquisitionException(name, "Interrupted while waiting for lock '" + name + "'", ex);
	}

	/**
	 * Release a hold.
	 * @see HoldRelease#release(RedisHold)
	 */
	void release(RedisHold hold) {
		this.release.release(hold);
	}

	/**
	 * Start tracking a hold just taken, observed before the watchdog and the lease
	 * expiries know it, or tell the wait's observation that it ended in vain.
	 */
	private void track(@Nullable RedisHold hold, LockObserver.Wait wait) {
		if (hold != null) {
			hold.observe(wait.acquired(hold.fencingToken));
			this.active.add(hold);
		}
		else {
			wait.notAcquired();
		}
	}

	/**
	 * Acquire a hold, waiting for the lock at most the given time; the hold is renewed or
	 * watched as its options say and told to the observer.
	 * @return the hold, or {@code null} if the lock was not acquired in time
	 */
	@Nullable RedisHold acquireHold(LockId id, Duration waitTime, LeaseOptions options) throws InterruptedException {
		Assert.isTrue(!waitTime.isNegative(), () -> "Wait time of lock '" + id.name + "' must not be negative");
		Deadline deadline = Deadline.after(waitTime);
		LockObserver.Wait wait = this.observer.waitStarted(id.name);
		LocalLock lock = this.locks.retain(id);
		boolean permitted = false;
		RedisHold hold = null;
		try {
			try {
				permitted = lock.permit.tryAcquire(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
				if (permitted) {
					hold = this.acquirer.acquire(lock, deadline, options);
				}
			}
			catch (InterruptedException | RuntimeException | Error ex) {
				wait.failed(ex);
				throw ex;
			}
			if (hold != null) {
				lock.holder.set(hold);
			}
			track(hold, wait);
			return hold;
		}
		finally {
			if (permitted) {
				lock.permit.release();
			}
			if (hold == null) {
				this.locks.release(lock);
			}
		}
	}

}
