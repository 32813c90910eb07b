package dev.distlock.check;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.distlock.DistributedSemaphore;
import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockRegistry;

/**
 * A {@link LockRegistry} in front of the real one that records every hold it hands out in
 * a {@link History}, whoever asked: the workers' own code or the {@code @DistributedLock}
 * interceptor, through a lock, either side of a read/write lock or a semaphore, every
 * acquisition with its outcome ({@link RecordedWaits}), a {@code LOSS} line each time a
 * hold's loss action runs, and the candidacies of its leaderships
 * ({@link RecordedLeadership}).
 */
final class RecordingLockRegistry implements LockRegistry {

	private final LockRegistry delegate;

	private final History history;

	/**
	 * What the ids of its holds begin with: its worker's incarnation, unique in the run.
	 */
	private final String idPrefix;

	private final AtomicLong sequence = new AtomicLong();

	private final RecordedWaits waits;

	private final ValiditySampler sampler;

	/** The lock delay of holds whose options give none. */
	private final Duration lockDelay;

	private final Map<String, RecordedLeadership> leaderships = new ConcurrentHashMap<>();

	/**
	 * The hold of each name acquired last by each thread: the interceptor acquires a
	 * call's locks on the thread that then runs its body (the calling thread, or for a
	 * {@code Mono} the thread that acquired on subscription), so the body finds its own
	 * holds, not those of another call of the same JVM.
	 */
	private final ThreadLocal<Map<String, RecordedHold>> latestByThread = ThreadLocal.withInitial(HashMap::new);

	private final ThreadLocal<Map<String, RecordedHold>> ownedByThread = ThreadLocal.withInitial(HashMap::new);

	RecordingLockRegistry(LockRegistry delegate, History history, String idPrefix, ValiditySampler sampler,
			Duration lockDelay) {
		this.delegate = delegate;
		this.history = history;
		this.idPrefix = idPrefix;
		this.sampler = sampler;
		this.lockDelay = lockDelay;
		this.waits = new RecordedWaits(history);
	}

	@Override
	public FencedLock obtain(String name, LeaseOptions options) {
		return new RecordedLock(this.delegate.obtain(name, options), options, WorkerOps.LOCK, this);
	}

	@Override
	public FencedReadWriteLock readWriteLock(String name) {
		FencedReadWriteLock lock = this.delegate.readWriteLock(name);
		return new RecordedReadWriteLock(lock.name(),
				new RecordedLock(lock.readLock(), LeaseOptions.WATCHDOG, WorkerOps.READ, this),
				new RecordedLock(lock.writeLock(), LeaseOptions.WATCHDOG, WorkerOps.WRITE, this));
	}

	@Override
	public RecordedLeadership leadership(String name) {
		return this.leaderships.computeIfAbsent(name,
				(key) -> new RecordedLeadership(this.delegate.leadership(key), this.history));
	}

	/**
	 * Return the names of the leaderships this JVM campaigns for without leading.
	 * @return the names
	 */
	Set<String> standbys() {
		return this.leaderships.values()
			.stream()
			.filter(RecordedLeadership::isStandby)
			.map(RecordedLeadership::name)
			.collect(Collectors.toSet());
	}

	@Override
	public DistributedSemaphore semaphore(String name, int permits) {
		return new RecordedSemaphore(this.delegate.semaphore(name, permits), this);
	}

	@Override
	public Optional<LockLease> tryAcquire(String name, Duration waitTime, LeaseOptions options) {
		return recordLease(name, "lease", waitTime, options, () -> this.delegate.tryAcquire(name, waitTime, options));
	}

	@Override
	public boolean isLocked(String name) {
		return this.delegate.isLocked(name);
	}

	@Override
	public Optional<Duration> remainingLease(String name) {
		return this.delegate.remainingLease(name);
	}

	/**
	 * Try to take a permit of a semaphore, and record the acquisition and the permit.
	 * @param semaphore the engine's semaphore
	 * @param waitTime how long to wait
	 * @return the permit, or empty if none was taken in time
	 */
	Optional<LockLease> tryAcquirePermit(DistributedSemaphore semaphore, Duration waitTime) {
		return recordLease(semaphore.name(), WorkerOps.PERMIT, waitTime, LeaseOptions.WATCHDOG,
				() -> semaphore.tryAcquire(waitTime), "permits", semaphore.permits());
	}

	private Optional<LockLease> recordLease(String name, String api, Duration waitTime, LeaseOptions options,
			Supplier<Optional<LockLease>> acquisition, Object... fields) {
		long start = History.now();
		Optional<LockLease> lease = this.waits.record(name, api, waitTime, acquisition, Optional::isPresent);
		return lease.map((held) -> new RecordedLease(held, acquired(name, held, options, start, api, fields)));
	}

	/**
	 * Return the acquisitions of this JVM.
	 * @return the acquisitions
	 */
	RecordedWaits waits() {
		return this.waits;
	}

	/**
	 * Return the hold of the given name acquired last by the current thread, for the body
	 * of an annotated method that needs the fencing token of each of its locks.
	 * @param name the lock's name
	 * @return the hold
	 */
	RecordedHold latest(String name) {
		RecordedHold hold = this.latestByThread.get().get(name);
		if (hold == null) {
			throw new IllegalStateException("No hold of '" + name + "' recorded");
		}
		return hold;
	}

	/**
	 * Try to acquire a thread-owned lock, or a side of a read/write lock, that the
	 * current thread does not hold yet, and record the acquisition and the hold.
	 * @param lock the engine's lock
	 * @param options the options it was obtained with
	 * @param api which lock it is: {@link WorkerOps#LOCK}, {@link WorkerOps#READ} or
	 * {@link WorkerOps#WRITE}
	 * @param waitTime how long to wait
	 * @return whether it was acquired
	 */
	boolean tryLockOwned(FencedLock lock, LeaseOptions options, String api, Duration waitTime) {
		long start = History.now();
		if (!this.waits.record(lock.name(), api, waitTime, () -> lock.tryLock(waitTime), Boolean::booleanValue)) {
			return false;
		}
		this.ownedByThread.get()
			.put(ownedKey(lock, api), acquired(lock.name(), lock.currentHold(), options, start, api));
		return true;
	}

	/**
	 * Return whether the current thread holds the given lock by a recorded acquisition
	 * not released yet, whether or not the engine still calls it held.
	 * @param lock the engine's lock
	 * @param api which lock it is
	 * @return whether an acquisition of it is recorded and not yet released
	 */
	boolean ownsRecorded(FencedLock lock, String api) {
		RecordedHold hold = this.ownedByThread.get().get(ownedKey(lock, api));
		return hold != null && !hold.isReleased();
	}

	/**
	 * Try to take again a lock the current thread holds, and record the attempt as a
	 * {@code REENTER} line with its outcome: {@code entered}, {@code refused}, or the
	 * type of the exception it threw (a hold known lost must throw
	 * {@code LockLostException}).
	 * @param lock the engine's lock
	 * @param api which lock it is
	 * @param waitTime how long to wait
	 * @return whether it was entered again
	 */
	boolean reenterOwned(FencedLock lock, String api, Duration waitTime) {
		RecordedHold hold = owned(lock, api);
		long start = History.now();
		String outcome = "refused";
		try {
			boolean entered = lock.tryLock(waitTime);
			outcome = entered ? "entered" : "refused";
			return entered;
		}
		catch (RuntimeException ex) {
			outcome = ex.getClass().getSimpleName();
			throw ex;
		}
		finally {
			this.history.record("REENTER", "hold", hold.id(), "start", start, "end", History.now(), "outcome", outcome);
		}
	}

	RecordedHold owned(FencedLock lock, String api) {
		RecordedHold hold = this.ownedByThread.get().get(ownedKey(lock, api));
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + lock.name() + "' is not held by this thread");
		}
		return hold;
	}

	void ownedReleased(FencedLock lock, String api, Runnable unlock) {
		RecordedHold hold = this.ownedByThread.get().get(ownedKey(lock, api));
		if (hold == null) {
			unlock.run();
			return;
		}
		try {
			hold.release(unlock, () -> !lock.isHeldByCurrentThread());
		}
		finally {
			if (!lock.isHeldByCurrentThread()) {
				this.ownedByThread.get().remove(ownedKey(lock, api));
			}
		}
	}

	/**
	 * Return the key of a thread's hold of a lock: a thread may hold both sides of a
	 * read/write lock, which have the same name.
	 */
	private static String ownedKey(FencedLock lock, String api) {
		return api + " " + lock.name();
	}

	/**
	 * Record a hold: {@code lease} is its fixed lease in milliseconds, 0 for a lease the
	 * watchdog renews, {@code delay} its lock delay in milliseconds; the given fields
	 * follow, such as a semaphore's {@code permits}.
	 */
	private RecordedHold acquired(String name, LockLease view, LeaseOptions options, long start, String api,
			Object... fields) {
		String id = this.idPrefix + "-" + this.sequence.incrementAndGet();
		RecordedHold hold = new RecordedHold(this.history, id, name, view.fencingToken(), view);
		long leaseMillis = (options.leaseTime() != null) ? options.leaseTime().toMillis() : 0;
		long delayMillis = ((options.lockDelay() != null) ? options.lockDelay() : this.lockDelay).toMillis();
		Object[] line = { "hold", id, "name", name, "token", view.fencingToken(), "api", api, "start", start, "end",
				History.now(), "thread", Thread.currentThread().getName(), "lease", leaseMillis, "delay", delayMillis };
		this.history.record("ACQ", Stream.concat(Arrays.stream(line), Arrays.stream(fields)).toArray());
		view.onLoss((lost) -> this.history.record("LOSS", "hold", id, "at", History.now()));
		this.sampler.add(hold);
		this.latestByThread.get().put(name, hold);
		return hold;
	}

}
