package dev.distlock.test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import dev.distlock.DistributedSemaphore;
import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.HeldLock;
import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.Leadership;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockEvent;
import dev.distlock.LockIntrospector;
import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.LockRegistry;
import dev.distlock.leader.LeadershipEvents;
import dev.distlock.leader.LockLeadership;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * A {@link LockRegistry} kept in the JVM, for tests: it keeps the registry's whole
 * contract without Redis. Registries on one {@link InMemoryLockStore} stand for the
 * application instances of one deployment: their locks exclude each other, their waiters
 * are served in the order they came, and the fencing tokens of a name increase across
 * them. Thread-owned locks are reentrant; read/write locks let readers share and a
 * waiting writer hold back the readers behind it; semaphores admit at most their permits;
 * leaderships elect one instance at a time.
 *
 * <p>
 * Leases are kept like the Redis registry's: a fixed lease runs out unless extended, a
 * minimum hold time keeps the name taken after an early release, a lock delay keeps it
 * after a lease ran out; a watchdog lease is renewed until released, unless
 * {@link #pauseRenewals() renewals are paused}, and then runs out a lease later. A hold
 * whose lease ran out is reported lost: its loss actions run, a {@link LockLostEvent} is
 * published and the {@link LockObserver} told, on one event thread per registry and in
 * order, and its release throws {@link LockLostException}. {@link LockFaults} makes a
 * held lock lost at once.
 *
 * <p>
 * In a Spring Boot test, {@code distlock.store=in-memory} makes the auto-configured
 * registry one of these, so that {@code @DistributedLock} methods are tested without
 * Redis.
 *
 * @since 0.1.0
 */
public class InMemoryLockRegistry implements LockRegistry, LockIntrospector, AutoCloseable {

	private static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

	/** Set on the event threads while they deliver. */
	private static final ThreadLocal<Boolean> DELIVERING = new ThreadLocal<>();

	private final InMemoryLockStore store;

	/** Whether this registry made its store, and closes it. */
	private final boolean ownsStore;

	private final Duration leaseTime;

	private final Duration lockDelay;

	private final Consumer<? super LockEvent> eventListener;

	private final LockObserver observer;

	private final ExecutorService events;

	private final ThreadHolds owned = new ThreadHolds("Lock");

	private final ThreadHolds ownedReads = new ThreadHolds("Read lock");

	private final Set<InMemoryHold> holds = ConcurrentHashMap.newKeySet();

	private final LeadershipEvents leadershipEvents;

	private final Map<LockName, LockLeadership> leaderships = new ConcurrentHashMap<>();

	private volatile boolean renewalsPaused;

	/**
	 * Create a registry on a store of its own, with a watchdog lease of 30 seconds, no
	 * lock delay, and nobody told of its events.
	 */
	public InMemoryLockRegistry() {
		this(new InMemoryLockStore(), true, DEFAULT_LEASE_TIME, Duration.ZERO, (event) -> {
		}, LockObserver.NONE);
	}

	/**
	 * Create a registry that stands for one application instance of the deployment that
	 * shares the given store.
	 * @param store the store, shared by the registries that exclude each other
	 * @param leaseTime the lease of holds renewed by the watchdog
	 */
	public InMemoryLockRegistry(InMemoryLockStore store, Duration leaseTime) {
		this(store, leaseTime, Duration.ZERO, (event) -> {
		}, LockObserver.NONE);
	}

	/**
	 * Create a registry that stands for one application instance of the deployment that
	 * shares the given store, and tells what happens to its locks.
	 * @param store the store, shared by the registries that exclude each other
	 * @param leaseTime the lease of holds renewed by the watchdog
	 * @param lockDelay how long a lock stays taken after its lease ran out, unless its
	 * lease options say otherwise
	 * @param eventListener receives the {@link LockEvent}s: losses and leadership changes
	 * @param observer told of every wait and hold, for metrics and traces
	 */
	public InMemoryLockRegistry(InMemoryLockStore store, Duration leaseTime, Duration lockDelay,
			Consumer<? super LockEvent> eventListener, LockObserver observer) {
		this(store, false, leaseTime, lockDelay, eventListener, observer);
	}

	private InMemoryLockRegistry(InMemoryLockStore store, boolean ownsStore, Duration leaseTime, Duration lockDelay,
			Consumer<? super LockEvent> eventListener, LockObserver observer) {
		Assert.isTrue(leaseTime.toMillis() > 0, () -> "'leaseTime' must be at least 1 ms, was " + leaseTime);
		Assert.isTrue(!lockDelay.isNegative(), () -> "'lockDelay' must not be negative, was " + lockDelay);
		this.store = store;
		this.ownsStore = ownsStore;
		this.leaseTime = leaseTime;
		this.lockDelay = lockDelay;
		this.eventListener = eventListener;
		this.observer = observer;
		this.leadershipEvents = new InMemoryLeadershipEvents(this, eventListener, observer);
		CustomizableThreadFactory threads = new CustomizableThreadFactory("distlock-events-");
		threads.setDaemon(true);
		this.events = Executors.newSingleThreadExecutor(threads);
	}

	@Override
	public FencedLock obtain(String name, LeaseOptions options) {
		return obtain(LockName.of(name), options);
	}

	@Override
	public FencedLock obtain(LockName name, LeaseOptions options) {
		return new InMemoryFencedLock(this, checked(name), HoldKind.EXCLUSIVE, options);
	}

	@Override
	public FencedReadWriteLock readWriteLock(String name) {
		return readWriteLock(LockName.of(name));
	}

	@Override
	public FencedReadWriteLock readWriteLock(LockName name) {
		return new InMemoryReadWriteLock(this, checked(name));
	}

	@Override
	public DistributedSemaphore semaphore(String name, int permits) {
		return semaphore(LockName.of(name), permits);
	}

	@Override
	public DistributedSemaphore semaphore(LockName name, int permits) {
		Assert.isTrue(permits > 0,
				() -> "Semaphore '" + name + "' must have at least 1 permit, but was given " + permits);
		return new InMemorySemaphore(this, checked(name), permits);
	}

	@Override
	public Optional<LockLease> tryAcquire(String name, Duration waitTime, LeaseOptions options) {
		return tryAcquire(LockName.of(name), waitTime, options);
	}

	@Override
	public Optional<LockLease> tryAcquire(LockName name, Duration waitTime, LeaseOptions options) {
		try {
			return Optional.ofNullable(take(checked(name), HoldKind.EXCLUSIVE, 0, waitTime, options)).map(this::lease);
		}
		catch (InterruptedException ex) {
			throw interrupted("Interrupted while waiting for lock '" + name + "'", name, ex);
		}
	}

	@Override
	public Optional<Duration> remainingLease(String name) {
		return this.store.remainingLease(name);
	}

	@Override
	public Leadership leadership(String name) {
		LockName checked = checked(LockName.of(name));
		return this.leaderships.computeIfAbsent(checked,
				(key) -> new LockLeadership(this, checked, checked.value(), this.leaseTime, this.leadershipEvents));
	}

	@Override
	public List<Leadership> leaderships() {
		return LockLeadership.running(this.leaderships.values());
	}

	/**
	 * Return the valid holds taken through this registry.
	 * @return the holds, sorted by name
	 */
	@Override
	public List<HeldLock> heldLocks() {
		long now = System.nanoTime();
		return this.holds.stream()
			.filter(InMemoryHold::isValid)
			.sorted((left, right) -> left.name.value().compareTo(right.name.value()))
			.map((hold) -> new HeldLock(hold.name.value(), hold.name.keyValue(), hold.name.value(), hold.fencingToken,
					Duration.ofNanos(now - hold.acquiredNanos), hold.remainingLease(now),
					(hold.owner != null) ? hold.owner : "lease", hold.kind))
			.toList();
	}

	/**
	 * Do nothing: the store is always there.
	 */
	@Override
	public void ping() {
	}

	@Override
	public Duration renewalPeriod() {
		return this.leaseTime.dividedBy(3);
	}

	@Override
	public Duration renewalDelay() {
		return Duration.ZERO;
	}

	/**
	 * Make every hold of the given name lost now, whoever holds it: see
	 * {@link InMemoryLockStore#expire(String)}.
	 */
	@Override
	public OptionalLong forceRelease(String name) {
		return this.store.expire(checked(LockName.of(name)).value());
	}

	/**
	 * Stop renewing the leases of this registry's holds, as if its watchdog could not
	 * reach Redis: each runs out a lease from now, and is then reported lost, unless
	 * renewals resume first. Holds taken while renewals are paused run out a lease after
	 * they were taken.
	 */
	public void pauseRenewals() {
		this.renewalsPaused = true;
		changeLeases();
	}

	/**
	 * Renew the leases of this registry's holds again: those that did not run out yet are
	 * kept until released.
	 */
	public void resumeRenewals() {
		this.renewalsPaused = false;
		changeLeases();
	}

	/**
	 * Stop the leaderships, report every hold still held lost (its owner may still be
	 * running) and free its name, and deliver the events published so far, waiting for
	 * them unless called while an event is delivered.
	 */
	@Override
	public void close() {
		this.leaderships.values().forEach(LockLeadership::stop);
		for (InMemoryHold hold : this.holds) {
			hold.slot.expire(hold, "the registry was closed while it was held");
		}
		this.events.shutdown();
		if (!isDelivering()) {
			try {
				this.events.awaitTermination(this.leaseTime.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (this.ownsStore) {
			this.store.close();
		}
	}

	boolean renewalsPaused() {
		return this.renewalsPaused;
	}

	ThreadHolds owned(HoldKind side) {
		return (side == HoldKind.READ_SHARE) ? this.ownedReads : this.owned;
	}

	/**
	 * Take a hold of a name, waiting at most the given time, observed like the Redis
	 * registry's. A read share of a thread that holds the write side is taken at once
	 * while that write hold is held (a downgrade); otherwise it waits like any reader.
	 * @return the hold, or {@code null} if not taken in time
	 */
	@Nullable InMemoryHold take(LockName name, HoldKind kind, int permits, Duration waitTime, LeaseOptions options)
			throws InterruptedException {
		Assert.isTrue(!waitTime.isNegative(), () -> "Wait time of " + ((kind == HoldKind.EXCLUSIVE) ? "lock " : "")
				+ "'" + name + "' must not be negative");
		InMemorySlot slot = (kind == HoldKind.PERMIT) ? this.store.semaphore(name.value())
				: this.store.lock(name.value());
		LockObserver.Wait wait = this.observer.waitStarted(name);
		InMemoryHold hold;
		try {
			hold = slot.take(claim(name, kind, permits, options), saturatedNanos(waitTime));
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			wait.failed(ex);
			throw ex;
		}
		if (hold == null) {
			wait.notAcquired();
			return null;
		}
		return track(hold, wait);
	}

	/**
	 * Return an owner-free lease of a hold, released through this registry.
	 */
	LockLease lease(InMemoryHold hold) {
		return new InMemoryLease(hold, () -> release(hold));
	}

	/**
	 * Release a hold.
	 * @throws LockLostException if it was lost before
	 */
	void release(InMemoryHold hold) {
		InMemoryHold.State before = hold.state();
		boolean held = hold.slot.release(hold);
		this.holds.remove(hold);
		hold.observation.released();
		if (!held && before != InMemoryHold.State.RELEASED) {
			throw hold.lostException(
					"Lock '" + hold.name + "' was lost before its release (fencing token " + hold.fencingToken + ")");
		}
	}

	/**
	 * Report a hold lost: run its loss actions, tell the observer and publish a
	 * {@link LockLostEvent}, on the event thread.
	 */
	void reportLost(InMemoryHold hold) {
		this.holds.remove(hold);
		publish(() -> {
			hold.lost(hold.lostException("Lock '" + hold.name + "' was lost while held (fencing token "
					+ hold.fencingToken + "): " + hold.lossReason()));
			LockLostEvent event = new LockLostEvent(hold.name.value(), hold.name.value(), hold.fencingToken,
					hold.lossReason());
			hold.observation.lost(event);
			this.eventListener.accept(event);
		});
	}

	/**
	 * Deliver an event on the event thread, after the ones before it.
	 * @return completed once delivered
	 */
	Future<?> publish(Runnable delivery) {
		try {
			return this.events.submit(() -> {
				DELIVERING.set(Boolean.TRUE);
				try {
					delivery.run();
				}
				finally {
					DELIVERING.remove();
				}
			});
		}
		catch (RejectedExecutionException ex) {
			// Closed: nobody listens any more
			return CompletableFuture.completedFuture(null);
		}
	}

	/**
	 * Wait at most a lease for an event to be delivered, unless the current thread
	 * delivers events; an interrupt is kept for the caller.
	 */
	void awaitDelivery(Future<?> delivered) {
		if (isDelivering()) {
			return;
		}
		boolean interrupted = false;
		try {
			while (true) {
				try {
					delivered.get(this.leaseTime.toNanos(), TimeUnit.NANOSECONDS);
					return;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (ExecutionException | TimeoutException ex) {
					return;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Return whether the current thread delivers this registry's events: it must not wait
	 * for a delivery.
	 */
	static boolean isDelivering() {
		return DELIVERING.get() != null;
	}

	static LockAcquisitionException interrupted(String message, LockName name, InterruptedException ex) {
		Thread.currentThread().interrupt();
		return new LockAcquisitionException(name.value(), message, ex);
	}

	private InMemorySlot.Claim claim(LockName name, HoldKind kind, int permits, LeaseOptions options) {
		InMemoryHold writeHold = (kind == HoldKind.READ_SHARE) ? this.owned.find(name) : null;
		Duration fixedLease = options.leaseTime();
		InMemoryHold.Lease lease = new InMemoryHold.Lease((fixedLease != null) ? fixedLease : this.leaseTime,
				fixedLease != null, orZero(options.minHoldTime()),
				(options.lockDelay() != null) ? options.lockDelay() : this.lockDelay);
		return new InMemorySlot.Claim(name, kind, permits, this, lease, writeHold);
	}

	private InMemoryHold track(InMemoryHold hold, LockObserver.Wait wait) {
		hold.observation = wait.acquired(hold.fencingToken);
		this.holds.add(hold);
		if (hold.state() != InMemoryHold.State.HELD) {
			// Lost before it was tracked: its report found nothing to remove
			this.holds.remove(hold);
		}
		else if (!hold.fixed && hold.isRenewed() == this.renewalsPaused) {
			// Renewals paused or resumed while it was taken, after its lease was set
			hold.slot.changeLeases(List.of(hold), this::followRenewals);
		}
		return hold;
	}

	private void changeLeases() {
		this.holds.stream()
			.collect(Collectors.groupingBy((hold) -> hold.slot))
			.forEach((slot, slotHolds) -> slot.changeLeases(slotHolds, this::followRenewals));
	}

	/**
	 * Make a hold's lease run out or be renewed, as renewals are paused or not now: read
	 * under the slot's monitor, so that the last pause or resume wins.
	 */
	private void followRenewals(InMemoryHold hold) {
		if (this.renewalsPaused) {
			hold.runOutFrom(System.nanoTime());
		}
		else {
			hold.keepRenewed();
		}
	}

	/**
	 * Return a wait time in nanoseconds, the longest there is for one too long to count
	 * in them: such a wait has no end, as on Redis.
	 */
	private static long saturatedNanos(Duration waitTime) {
		try {
			return waitTime.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE;
		}
	}

	private static Duration orZero(@Nullable Duration duration) {
		return (duration != null) ? duration : Duration.ZERO;
	}

	private static LockName checked(LockName name) {
		Assert.notNull(name, "'name' must not be null");
		Assert.hasLength(name.value(), "'name' must not be empty");
		return name;
	}

}
