package dev.distlock.check;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import dev.distlock.DistributedSemaphore;
import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.testsupport.Closer;
import reactor.core.Disposable;

/**
 * One worker thread's loop: random operations through every API on a few lock names, a
 * read/write lock and two semaphores, each bounded in time, with its outcome recorded as
 * a {@code CALL} line. A call still unanswered after {@link #BOUND} is recorded as
 * {@code HUNG}.
 * <p>
 * Some holds have a fixed lease and a lock delay and last until about when the lease runs
 * out ({@code nearExpiry}), so that their release, handing the lock to a thread of the
 * same JVM or not, may reach Redis after the lease. Others ({@code lateWrite}) work under
 * such a hold only once its lease and delay ran out, so that their writes may reach the
 * fence after a rival's.
 * <p>
 * Waiters give up while queued: wait times range from none to longer than a lease, some
 * holds last beyond a lease ({@code longHold}, and as often as not a read share, a write
 * hold or a permit) so that short waits run out behind them, and a {@code Mono} is
 * cancelled either while it acquires or after it may have queued ({@code monoCancel}).
 * Holds are kept through {@link KeptHolds}, for a time of the JVM running, so that a
 * holder frozen while it keeps one still keeps it once thawed.
 * <p>
 * A thread that holds a lock, or a read share, now and then takes it again and leaves it
 * (a reentry, recorded as {@code REENTER}): after a fault a hold may be lost by then, and
 * its reentry must throw rather than say it holds the lock.
 * <p>
 * Readers read the counters of the read/write lock's name twice
 * ({@link CriticalSection}), some take their read lock again or try to take the write
 * lock (an upgrade, which must throw); writers increment them, and a downgrade takes the
 * read lock under the write lock, releases the write lock and reads. Each upgrade and
 * downgrade is recorded as a {@code SIDE} line with the validity of the hold it started
 * from. A reader burst ({@link ReaderBurst}) sends a stream of readers, each on a thread
 * of its own, at the read/write lock while a writer waits, for the writer-starved check
 * of {@link LivenessChecks}. A permit burst sends as many threads as a semaphore gives
 * permits, and two more, at it at once, each keeping its permit a while, so that a
 * semaphore that admits one holder too many shows.
 * <p>
 * A fresh registry ({@link FreshRegistries}) has two or three threads wait at once for
 * names this thread holds, so that they all wait for that registry's first subscription
 * to lock grants, and one of them is interrupted early: while it and another wait for
 * Redis to confirm the subscription when they are seen doing so, recorded as
 * {@code FRESH interrupted=subscribing}, otherwise {@code FRESH interrupted=early}. The
 * others must take their locks once this thread releases them.
 */
final class WorkerOps implements Runnable {

	/** Longest any call may take, far above every wait time, lease and fault. */
	static final Duration BOUND = Duration.ofSeconds(30);

	/** Keys of the locks; lock names are {@code c:<key>}. */
	static final List<String> KEYS = List.of("r0", "r1", "r2", "r3");

	/** The calls a worker thread picks from, some more often than others. */
	static final List<String> APIS = List.of("lock", "lock", "lease", "lease", "longHold", "longHold", "nearExpiry",
			"sync", "fixedLease", "minHold", "transactional", "multi", "future", "mono", "monoCancel", "permit",
			"permit", "read", "read", "write", "downgrade", "readerBurst", "permitBurst", "freshRegistry", "lateWrite");

	/**
	 * The calls of a worker that locks on a Redlock quorum: those of locks and leases,
	 * without read/write locks and semaphores, which Redlock does not offer, and without
	 * fresh registries, which are built on one Redis.
	 */
	static final List<String> QUORUM_APIS = APIS.stream()
		.filter((api) -> !Set.of("permit", "read", "write", "downgrade", "readerBurst", "permitBurst", "freshRegistry")
			.contains(api))
		.toList();

	/** The name of the read/write lock. */
	static final String READ_WRITE = "rw:0";

	/** The names of the semaphores, by how many permits each gives. */
	static final Map<String, Integer> SEMAPHORES = Map.of("s:0", 2, "s:1", 3);

	/** The name of the leadership every worker JVM campaigns for. */
	static final String LEADERSHIP = "l:0";

	/** The {@code api} of a leadership's terms. */
	static final String TERM = "term";

	/** The {@code api} of a leadership's candidacies. */
	static final String CANDIDACY = "candidacy";

	/** The {@code api} of holds and acquisitions of a thread-owned lock. */
	static final String LOCK = "lock";

	/** The {@code api} of holds and acquisitions of a read lock. */
	static final String READ = "read";

	/** The {@code api} of holds and acquisitions of a write lock. */
	static final String WRITE = "write";

	/** The {@code api} of permits and their acquisitions. */
	static final String PERMIT = "permit";

	/**
	 * The options of holds kept until about when their fixed lease runs out, released
	 * just before or just after, with a lock delay.
	 */
	private static final LeaseOptions NEAR_EXPIRY = LeaseOptions.fixed(Duration.ofMillis(400))
		.withLockDelay(Duration.ofMillis(300));

	/**
	 * The wait times of the workers' own acquisitions; the longest outlasts the liveness
	 * bound of {@link LivenessChecks}, so that a lock left unserved is seen.
	 */
	private static final Duration[] WAITS = { Duration.ZERO, Duration.ofMillis(200), Duration.ofSeconds(1),
			Duration.ofSeconds(5) };

	/** How long a rival that takes a lock for the nemesis keeps it. */
	private static final int TAKE_KEEP_MILLIS = 500;

	/**
	 * How long a rival that probes a share or permit for the nemesis waits between its
	 * attempts at least: often enough that some attempts fall within the last few hundred
	 * milliseconds of the frozen holder's lease.
	 */
	private static final int PROBE_MIN_MILLIS = 30;

	/**
	 * How long a rival that probes a share or permit waits between its attempts at most.
	 */
	private static final int PROBE_MAX_MILLIS = 50;

	/**
	 * The options of a hold whose release waits for the nemesis: a fixed lease, so that
	 * no renewal finds the lock gone before the release does, that outlasts the wait.
	 */
	private static final LeaseOptions PARKED = LeaseOptions.fixed(Duration.ofSeconds(5));

	/**
	 * How long the waiter of a parked release waits: for the release and a rival's hold
	 * after it.
	 */
	private static final Duration PARKED_WAITER_WAIT = Duration.ofSeconds(5);

	/**
	 * How long the holder of a parked release, or a downgrading writer, lets its waiter
	 * queue at most.
	 */
	private static final Duration PARKED_QUEUE_BOUND = Duration.ofSeconds(1);

	/**
	 * How long a holder of every permit of a semaphore looks at its validity at most,
	 * waiting for its lease to run out.
	 */
	private static final Duration LEASE_OUT_BOUND = Duration.ofSeconds(5);

	/**
	 * How long a rival that takes a permit for the nemesis waits: for a holder's lease to
	 * run out and its place to be freed.
	 */
	private static final Duration TAKE_PERMIT_WAIT = Duration.ofSeconds(4);

	/**
	 * How long a downgrading writer waits for the write lock: long enough to get it
	 * between the reader bursts and writers that keep the read/write lock busy.
	 */
	private static final Duration DOWNGRADE_WAIT = Duration.ofSeconds(2);

	/** How long the threads of a permit burst wait for a permit. */
	private static final Duration PERMIT_BURST_WAIT = Duration.ofSeconds(2);

	/** How long the waiters of a fresh registry may wait. */
	private static final Duration FRESH_WAIT = Duration.ofSeconds(5);

	/**
	 * How long the waiters of a fresh registry are watched for two of them waiting for
	 * its first subscription before one of them is interrupted anyway.
	 */
	private static final Duration SUBSCRIBING_BOUND = Duration.ofMillis(50);

	/** Where a waiter waits for its registry's subscription to lock grants. */
	private static final String SUBSCRIBING_CLASS = "dev.distlock.redis.ReleaseSignals";

	private static final String SUBSCRIBING_METHOD = "subscribe";

	private final RecordingLockRegistry registry;

	private final FreshRegistries freshRegistries;

	private final CheckedService service;

	private final CriticalSection critical;

	private final KeptHolds kept;

	private final History history;

	private final Random random;

	private final List<String> apis;

	private final BooleanSupplier stopping;

	WorkerOps(RecordingLockRegistry registry, FreshRegistries freshRegistries, CheckedService service,
			CriticalSection critical, KeptHolds kept, History history, long seed, List<String> apis,
			BooleanSupplier stopping) {
		this.registry = registry;
		this.freshRegistries = freshRegistries;
		this.service = service;
		this.critical = critical;
		this.kept = kept;
		this.history = history;
		this.random = new Random(seed);
		this.apis = apis;
		this.stopping = stopping;
	}

	@Override
	public void run() {
		while (!this.stopping.getAsBoolean()) {
			Thread.interrupted();
			callRecorded(pickApi(), this::call);
		}
	}

	/**
	 * Take the named lock, waiting for it at most the given time, work under it and keep
	 * it for {@value #TAKE_KEEP_MILLIS} ms, recorded as the call {@code take}: a rival
	 * the nemesis sends at a lock another JVM is about to hand over (no wait), or whose
	 * holder it froze past its lease, through the registry of the worker's rival
	 * ({@link FreshRegistries#openRival}). For a semaphore, wait up to
	 * {@link #TAKE_PERMIT_WAIT} for a permit and keep it as long: a rival for a place
	 * that a release whose lease ran out may free too early.
	 * @param name the lock's or semaphore's name
	 * @param waitTime how long to wait for a lock
	 */
	void take(String name, Duration waitTime) {
		callRecorded("take", (api) -> {
			if (SEMAPHORES.containsKey(name)) {
				permit(name, TAKE_PERMIT_WAIT, TAKE_KEEP_MILLIS);
			}
			else {
				lock(this.registry, name, waitTime, TAKE_KEEP_MILLIS);
			}
		});
	}

	/**
	 * Try the read lock of the read/write lock, or a permit of the named semaphore,
	 * without waiting, every {@value #PROBE_MIN_MILLIS} to {@value #PROBE_MAX_MILLIS} ms
	 * for the given time, and release at once whatever an attempt takes (a read share
	 * after reading under it), recorded as the call {@code probe}: a rival the nemesis
	 * sends, through the registry of the worker's rival
	 * ({@link FreshRegistries#openRival}), at a share or permit whose holder of another
	 * JVM it froze until just before the lease that holder counts on runs out. Redis
	 * drops the entries of a name whose lease ran out only when a script on that name
	 * runs, as each attempt does; an entry dropped before its lease ran out is then found
	 * gone by the thawed holder's renewal, or lets this rival in beside it at capacity.
	 * @param name the read/write lock's or semaphore's name
	 * @param millis how long to keep trying
	 */
	void probe(String name, long millis) {
		callRecorded("probe", (api) -> {
			long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
			while (System.nanoTime() - deadline < 0 && !this.stopping.getAsBoolean()) {
				if (SEMAPHORES.containsKey(name)) {
					permit(name, Duration.ZERO, 0);
				}
				else {
					read(Duration.ZERO, 0, false);
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS
					.toNanos(PROBE_MIN_MILLIS + this.random.nextInt(PROBE_MAX_MILLIS - PROBE_MIN_MILLIS + 1)));
			}
		});
	}

	/**
	 * Take every permit of the named semaphore, say so ({@code HOLDING <id>}), look at
	 * their validity until their lease ran out (at most {@link #LEASE_OUT_BOUND}), and
	 * release them all at once, each on a thread of its own, saying so once they were
	 * sent ({@code RELEASING <id>}); recorded as the call {@code leaseOutRelease}. The
	 * nemesis stalls this worker's connections so that the leases run out, and lets the
	 * releases through once they were all sent, each knowing its lease over, while a
	 * rival waits for a permit.
	 * @param name the semaphore's name
	 * @param id the id the nemesis gave this release
	 */
	void leaseOutRelease(String name, String id) {
		callRecorded("leaseOutRelease", (api) -> {
			DistributedSemaphore semaphore = this.registry.semaphore(name, SEMAPHORES.get(name));
			List<LockLease> permits = new ArrayList<>();
			List<Thread> threads = new ArrayList<>();
			List<CompletableFuture<Void>> parts = new ArrayList<>();
			try {
				while (permits.size() < SEMAPHORES.get(name)) {
					Optional<LockLease> permit = semaphore.tryAcquire(PARKED_QUEUE_BOUND);
					if (permit.isEmpty()) {
						break;
					}
					permits.add(permit.get());
				}
				if (permits.size() == SEMAPHORES.get(name)) {
					System.out.println("HOLDING " + id);
					awaitLeasesOut(permits);
				}
			}
			finally {
				for (LockLease held : permits) {
					parts.add(startAfter(Thread.currentThread().getName() + "-release-" + parts.size(), 0,
							held::release, threads));
				}
				// Past the sending of the releases
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
				System.out.println("RELEASING " + id);
				awaitAll(parts, threads);
			}
		});
	}

	/**
	 * Look at the validity of the given holds until none is valid, or for
	 * {@link #LEASE_OUT_BOUND}.
	 */
	private static void awaitLeasesOut(List<LockLease> holds) {
		long deadline = System.nanoTime() + LEASE_OUT_BOUND.toNanos();
		while (holds.stream().map((held) -> ((RecordedLease) held).hold()).anyMatch(RecordedHold::checkValid)
				&& System.nanoTime() - deadline < 0) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
		}
	}

	/**
	 * Take the named lock with a fixed lease, have another thread of this JVM wait for
	 * it, and once it queued, park the release until the nemesis lets it go
	 * ({@link ParkedReleases}), recorded as the call {@code parkedRelease}: the nemesis
	 * makes the lock another process's meanwhile, and the release must not hand it to the
	 * waiter.
	 * @param name the lock's name
	 * @param parked the releases waiting for the nemesis
	 * @param id the id the nemesis gave this release
	 */
	void parkedRelease(String name, ParkedReleases parked, String id) {
		callRecorded("parkedRelease", (api) -> {
			FencedLock lock = this.registry.obtain(name, PARKED);
			if (!lock.tryLock(PARKED_QUEUE_BOUND)) {
				return;
			}
			// Closed in reverse: the lock released, the waiter awaited
			try (Closer closer = new Closer()) {
				List<Thread> threads = new ArrayList<>();
				List<CompletableFuture<Void>> parts = new ArrayList<>();
				closer.add(() -> awaitAll(parts, threads));
				closer.add(lock::unlock);
				this.critical.run(List.of(((RecordedLease) lock.currentHold()).hold()));
				parts.add(startAfter(Thread.currentThread().getName() + "-waiter", 0,
						() -> lock(this.registry, name, PARKED_WAITER_WAIT, 0), threads));
				awaitQueued(name);
				parked.park(id);
			}
		});
	}

	/**
	 * Wait until a thread of this JVM waits for the named lock, within
	 * {@link #PARKED_QUEUE_BOUND}, and then past its offer of a hand-over and its first
	 * attempt in Redis.
	 */
	private void awaitQueued(String name) {
		long deadline = System.nanoTime() + PARKED_QUEUE_BOUND.toNanos();
		while (!this.registry.waits().names().contains(name) && System.nanoTime() - deadline < 0) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
		}
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
	}

	/**
	 * Run a call and record its outcome.
	 */
	private void callRecorded(String api, Call call) {
		String outcome = "OK";
		try {
			call.run(api);
		}
		catch (TimeoutException ex) {
			outcome = "HUNG";
			this.history.record("HUNG", "api", api, "thread", Thread.currentThread().getName());
		}
		catch (Exception ex) {
			outcome = isBlockTimeout(ex) ? "HUNG" : ex.getClass().getSimpleName();
			if (outcome.equals("HUNG")) {
				this.history.record("HUNG", "api", api, "thread", Thread.currentThread().getName());
			}
		}
		this.history.record("CALL", "api", api, "outcome", outcome);
	}

	private String pickApi() {
		return this.apis.get(this.random.nextInt(this.apis.size()));
	}

	private void call(String api) throws Exception {
		String key = KEYS.get(this.random.nextInt(KEYS.size()));
		switch (api) {
			case "lock" -> lock(key, 0);
			case "longHold" -> lock(key, 300 + this.random.nextInt(2200));
			case "nearExpiry" -> nearExpiry(key);
			case "lateWrite" -> lateWrite(key);
			case "lease" -> lease(key);
			case "sync" -> this.service.sync(key);
			case "fixedLease" -> this.service.fixedLease(key);
			case "minHold" -> this.service.minHold(key);
			case "transactional" -> this.service.transactional(key);
			case "multi" -> this.service.multi(twoKeys(key));
			case "future" -> this.service.future(twoKeys(key)).get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
			case "mono" -> this.service.mono(key).block(BOUND);
			case "monoCancel" -> monoCancel(key);
			case "permit" -> permit();
			case "read" -> read();
			case "write" -> write();
			case "downgrade" -> downgrade();
			case "readerBurst" -> readerBurst();
			case "permitBurst" -> permitBurst();
			case "freshRegistry" -> freshRegistry();
			default -> throw new IllegalArgumentException(api);
		}
	}

	/**
	 * Lock, work, and keep the lock for the given time longer: beyond a lease, the
	 * watchdog renews it while others wait.
	 */
	private void lock(String key, int keepMillis) {
		lock(this.registry, "c:" + key, waitTime(), keepMillis);
	}

	/**
	 * Lock the named lock through the given registry within the given time, work, and
	 * keep the lock for the given time longer.
	 */
	private void lock(RecordingLockRegistry registry, String name, Duration waitTime, int keepMillis) {
		FencedLock lock = registry.obtain(name);
		if (!lock.tryLock(waitTime)) {
			return;
		}
		try {
			this.critical.run(List.of(((RecordedLease) lock.currentHold()).hold()));
			this.kept.keep(name, lock.currentHold(), keepMillis, false);
			if (this.random.nextInt(3) == 0) {
				reenter(lock);
			}
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * Hold a lock with a fixed lease and a lock delay until about when the lease runs
	 * out, and release it: a release that reaches Redis after the lease must report the
	 * loss and leave the lock to nobody for the delay, also when it would hand the lock
	 * to a thread of this JVM that waits for it.
	 */
	private void nearExpiry(String key) {
		FencedLock lock = this.registry.obtain("c:" + key, NEAR_EXPIRY);
		if (!lock.tryLock(waitTime())) {
			return;
		}
		try {
			this.critical.run(List.of(((RecordedLease) lock.currentHold()).hold()));
			long leaseMillis = NEAR_EXPIRY.leaseTime().toMillis();
			this.kept.keep(lock.name(), lock.currentHold(), leaseMillis - 80 + this.random.nextInt(120), false);
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * Hold a lock with a fixed lease and a lock delay, stand still past both, and only
	 * then work under it, as a holder that missed its lease would: a rival may hold the
	 * lock by then, with a token less than a second greater, and the fence must refuse
	 * the late write all the same.
	 */
	private void lateWrite(String key) {
		FencedLock lock = this.registry.obtain("c:" + key, NEAR_EXPIRY);
		if (!lock.tryLock(waitTime())) {
			return;
		}
		try {
			long lapseMillis = NEAR_EXPIRY.leaseTime().plus(NEAR_EXPIRY.lockDelay()).toMillis();
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(lapseMillis + 100 + this.random.nextInt(200)));
			this.critical.run(List.of(((RecordedLease) lock.currentHold()).hold()));
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * Take a held lock again and leave it, as a nested call or a retry would: a hold
	 * known lost must refuse by throwing {@link LockLostException}, which ends the side
	 * trip (the attempt is recorded, and checked, as {@code REENTER}).
	 */
	private static void reenter(FencedLock lock) {
		try {
			if (lock.tryLock(Duration.ZERO)) {
				lock.unlock();
			}
		}
		catch (LockLostException ex) {
			// What the reentry of a lost hold must do
		}
	}

	private void permit() {
		permit(pickSemaphore(), waitTime(), keepMillis());
	}

	/**
	 * Take a permit of the given semaphore within the given time, and keep it the given
	 * time, looking at its validity before and after.
	 */
	private void permit(String name, Duration waitTime, int keepMillis) {
		Optional<LockLease> permit = this.registry.semaphore(name, SEMAPHORES.get(name)).tryAcquire(waitTime);
		if (permit.isEmpty()) {
			return;
		}
		RecordedHold hold = ((RecordedLease) permit.get()).hold();
		try {
			hold.checkValid();
			this.kept.keep(name, permit.get(), keepMillis, true);
			hold.checkValid();
		}
		finally {
			permit.get().release();
		}
	}

	private String pickSemaphore() {
		List<String> names = List.copyOf(new TreeSet<>(SEMAPHORES.keySet()));
		return names.get(this.random.nextInt(names.size()));
	}

	/**
	 * Send as many threads as a semaphore gives permits, and two more, at it at once,
	 * each on a thread of its own that waits up to {@link #PERMIT_BURST_WAIT} for a
	 * permit and keeps it 300 to 800 ms, and wait for them all within {@link #BOUND}; a
	 * failure of one of them is the call's.
	 */
	private void permitBurst() throws Exception {
		String name = pickSemaphore();
		String names = Thread.currentThread().getName() + "-permits-" + History.now();
		List<Thread> threads = new ArrayList<>();
		List<CompletableFuture<Void>> parts = new ArrayList<>();
		for (int i = 0; i < SEMAPHORES.get(name) + 2; i++) {
			int keepMillis = 300 + this.random.nextInt(500);
			parts.add(startAfter(names + "-" + i, 0, () -> permit(name, PERMIT_BURST_WAIT, keepMillis), threads));
		}
		awaitAll(parts, threads);
	}

	private void read() {
		read(waitTime(), keepMillis(), true);
	}

	/**
	 * Take the read lock within the given time, read, and keep the share the given time
	 * longer; with side trips, now and then take it again or try an upgrade meanwhile.
	 */
	private void read(Duration waitTime, int keepMillis, boolean sideTrips) {
		FencedReadWriteLock lock = this.registry.readWriteLock(READ_WRITE);
		if (!lock.readLock().tryLock(waitTime)) {
			return;
		}
		try {
			RecordedHold hold = ((RecordedLease) lock.readLock().currentHold()).hold();
			this.critical.read(hold);
			if (sideTrips && this.random.nextInt(4) == 0) {
				reenter(lock.readLock());
			}
			if (sideTrips && this.random.nextInt(4) == 0) {
				upgrade(lock, hold);
			}
			this.kept.keep(READ_WRITE, lock.readLock().currentHold(), keepMillis, true);
		}
		finally {
			lock.readLock().unlock();
		}
	}

	/**
	 * Send a stream of readers at the read/write lock while a writer waits, each on a
	 * thread of its own that starts at once and waits for its turn, and wait for them all
	 * within {@link #BOUND}; a failure of one of them is the call's.
	 */
	private void readerBurst() throws Exception {
		ReaderBurst burst = ReaderBurst.pick(this.random);
		String names = Thread.currentThread().getName() + "-burst-" + History.now();
		List<Thread> threads = new ArrayList<>();
		List<CompletableFuture<Void>> parts = new ArrayList<>();
		parts
			.add(startAfter(names + "-writer", burst.writerOffset(), () -> write(ReaderBurst.WRITER_WAIT, 0), threads));
		for (int reader = 0; reader <= burst.laterReaders(); reader++) {
			int keepMillis = burst.keepMillis(reader);
			parts.add(startAfter(names + "-reader-" + reader, burst.readerOffset(reader),
					() -> read(ReaderBurst.READER_WAIT, keepMillis, false), threads));
		}
		awaitAll(parts, threads);
	}

	/**
	 * Hold two or three lock names and have as many threads of a fresh registry wait for
	 * them at once, interrupt one of them early, release the names a little later, wait
	 * for the threads within {@link #BOUND} (a failure of one of them is the call's) and
	 * close the registry.
	 */
	private void freshRegistry() throws Exception {
		List<String> keys = new ArrayList<>(KEYS);
		Collections.shuffle(keys, this.random);
		// Closed in reverse: the names released, the waiters awaited, the registry closed
		try (Closer closer = new Closer()) {
			FreshRegistries.Fresh fresh = closer.add(this.freshRegistries.open());
			List<Thread> threads = new ArrayList<>();
			List<CompletableFuture<Void>> parts = new ArrayList<>();
			closer.add(() -> awaitAll(parts, threads));
			List<FencedLock> held = new ArrayList<>();
			for (String key : new TreeSet<>(keys.subList(0, 2 + this.random.nextInt(2)))) {
				FencedLock lock = this.registry.obtain("c:" + key);
				if (lock.tryLock(Duration.ofSeconds(1))) {
					closer.add(lock::unlock);
					held.add(lock);
				}
			}
			if (held.size() < 2) {
				return;
			}
			String names = Thread.currentThread().getName() + "-fresh-" + History.now();
			for (FencedLock lock : held) {
				parts.add(startAfter(names + "-" + parts.size(), 0,
						() -> lock(fresh.recorder(), lock.name(), FRESH_WAIT, 0), threads));
			}
			interruptOneEarly(threads);
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200 + this.random.nextInt(200)));
		}
	}

	/**
	 * Interrupt one of the given waiters as soon as two of them are seen waiting for
	 * their registry's subscription, or one drawn at random after
	 * {@link #SUBSCRIBING_BOUND}, and record which it was.
	 */
	private void interruptOneEarly(List<Thread> waiters) {
		long deadline = System.nanoTime() + SUBSCRIBING_BOUND.toNanos();
		List<Thread> subscribing = List.of();
		while (subscribing.size() < 2 && System.nanoTime() - deadline < 0) {
			Thread.onSpinWait();
			subscribing = waiters.stream().filter(WorkerOps::isSubscribing).toList();
		}
		boolean together = subscribing.size() >= 2;
		Thread interrupted = together ? subscribing.get(0) : waiters.get(this.random.nextInt(waiters.size()));
		interrupted.interrupt();
		this.history.record("FRESH", "thread", interrupted.getName(), "interrupted",
				together ? "subscribing" : "early");
	}

	private static boolean isSubscribing(Thread thread) {
		return Arrays.stream(thread.getStackTrace())
			.anyMatch((frame) -> frame.getClassName().equals(SUBSCRIBING_CLASS)
					&& frame.getMethodName().equals(SUBSCRIBING_METHOD));
	}

	/**
	 * Run the given part of an operation on a daemon thread of the given name, after the
	 * given time, and add the thread to the given list.
	 */
	private static CompletableFuture<Void> startAfter(String threadName, long delayMillis, Runnable part,
			List<Thread> threads) {
		CompletableFuture<Void> done = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(delayMillis));
				part.run();
				done.complete(null);
			}
			catch (Throwable ex) {
				done.completeExceptionally(ex);
			}
		}, threadName);
		thread.setDaemon(true);
		threads.add(thread);
		thread.start();
		return done;
	}

	/**
	 * Wait within {@link #BOUND} for the parts of an operation that run on the given
	 * threads, and throw a failure of one of them. An interrupt of the waiting thread is
	 * passed on to the parts' threads, as if it had hit the operation's waiters, and kept
	 * for the caller.
	 */
	private static void awaitAll(List<CompletableFuture<Void>> parts, List<Thread> threads) throws Exception {
		CompletableFuture<Void> all = CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new));
		long deadline = System.nanoTime() + BOUND.toNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					all.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
					return;
				}
				catch (InterruptedException ex) {
					interrupted = true;
					threads.forEach(Thread::interrupt);
				}
			}
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof Exception failure) {
				throw failure;
			}
			throw (Error) ex.getCause();
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Try to take the write lock while holding only the read lock: it must throw rather
	 * than wait for its own share.
	 */
	private void upgrade(FencedReadWriteLock lock, RecordedHold read) {
		boolean valid = read.checkValid();
		String outcome = "refused";
		try {
			if (lock.writeLock().tryLock(Duration.ofMillis(200))) {
				outcome = "acquired";
				lock.writeLock().unlock();
			}
			else {
				outcome = "timeout";
			}
		}
		catch (IllegalMonitorStateException ex) {
			// What an upgrade must do
		}
		this.history.record("SIDE", "hold", read.id(), "change", "upgrade", "valid", valid, "outcome", outcome);
	}

	private void write() {
		write(waitTime(), keepMillis());
	}

	/**
	 * Take the write lock within the given time, write, and keep it the given time
	 * longer.
	 */
	private void write(Duration waitTime, int keepMillis) {
		FencedLock lock = this.registry.readWriteLock(READ_WRITE).writeLock();
		if (!lock.tryLock(waitTime)) {
			return;
		}
		try {
			this.critical.run(List.of(((RecordedLease) lock.currentHold()).hold()));
			this.kept.keep(READ_WRITE, lock.currentHold(), keepMillis, false);
		}
		finally {
			lock.unlock();
		}
	}

	/**
	 * Write, take the read lock under the write lock, release the write lock and read,
	 * with a writer of this JVM queued behind the downgrading writer, whom the release
	 * must not hand the lock while its thread keeps the read share. The queued writer is
	 * awaited within {@link #BOUND}.
	 */
	private void downgrade() throws Exception {
		FencedReadWriteLock lock = this.registry.readWriteLock(READ_WRITE);
		if (!lock.writeLock().tryLock(DOWNGRADE_WAIT)) {
			return;
		}
		List<Thread> threads = new ArrayList<>();
		List<CompletableFuture<Void>> parts = new ArrayList<>();
		try (Closer closer = new Closer()) {
			closer.add(() -> awaitAll(parts, threads));
			parts.add(startAfter(Thread.currentThread().getName() + "-queued-writer", 0,
					() -> write(ReaderBurst.WRITER_WAIT, 0), threads));
			awaitQueued(READ_WRITE);
			downgrade(lock);
		}
	}

	/**
	 * Write under the write lock this thread holds, take the read lock under it, release
	 * the write lock and read.
	 */
	private void downgrade(FencedReadWriteLock lock) {
		boolean reading = false;
		try {
			RecordedHold write = ((RecordedLease) lock.writeLock().currentHold()).hold();
			this.critical.run(List.of(write));
			boolean valid = write.checkValid();
			reading = lock.readLock().tryLock(Duration.ZERO);
			this.history.record("SIDE", "hold", write.id(), "change", "downgrade", "valid", valid, "outcome",
					reading ? "acquired" : "refused");
		}
		finally {
			try {
				lock.writeLock().unlock();
			}
			catch (RuntimeException ex) {
				if (reading) {
					lock.readLock().unlock();
				}
				throw ex;
			}
		}
		if (reading) {
			try {
				this.critical.read(((RecordedLease) lock.readLock().currentHold()).hold());
			}
			finally {
				lock.readLock().unlock();
			}
		}
	}

	/**
	 * Return how long to keep a read share, a write hold or a permit after working under
	 * it: none half the time, otherwise up to beyond a lease.
	 */
	private int keepMillis() {
		return this.random.nextBoolean() ? 0 : 300 + this.random.nextInt(2200);
	}

	private void lease(String key) {
		Optional<LockLease> lease = this.registry.tryAcquire("c:" + key, waitTime());
		if (lease.isEmpty()) {
			return;
		}
		try {
			this.critical.run(List.of(((RecordedLease) lease.get()).hold()));
		}
		finally {
			lease.get().release();
		}
	}

	private void monoCancel(String key) {
		Disposable subscription = this.service.mono(key).subscribe((count) -> {
		}, (failure) -> {
		});
		int cancelAfterMillis = this.random.nextBoolean() ? this.random.nextInt(30) : 50 + this.random.nextInt(750);
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(cancelAfterMillis));
		subscription.dispose();
	}

	private List<String> twoKeys(String first) {
		List<String> keys = new ArrayList<>(KEYS);
		keys.remove(first);
		return List.of(first, keys.get(this.random.nextInt(keys.size())));
	}

	private Duration waitTime() {
		return WAITS[this.random.nextInt(WAITS.length)];
	}

	/**
	 * One call of an API.
	 */
	@FunctionalInterface
	private interface Call {

		void run(String api) throws Exception;

	}

	private static boolean isBlockTimeout(Exception ex) {
		return ex instanceof IllegalStateException && String.valueOf(ex.getMessage()).startsWith("Timeout on blocking");
	}

}
