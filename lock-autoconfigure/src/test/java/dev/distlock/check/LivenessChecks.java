package dev.distlock.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.distlock.check.CheckHistory.Fault;
import dev.distlock.check.CheckHistory.Hold;
import dev.distlock.check.CheckHistory.Wait;

/**
 * The liveness check: a lock that nobody holds is not left unserved while some worker
 * waits for it. For each lock name, the checker takes the times some acquisition of it
 * was waiting with wait time left, and removes the times the lock may have been held and
 * those a fault may have held up its grant. What is left is time the lock was certainly
 * free while wanted; no stretch of it may last {@link #BOUND}. This catches a lock
 * reserved for nobody, such as a grant sent to a waiter that is gone and kept until a
 * lease passes, or waiters that are not woken when it is freed. A read/write lock is free
 * when no side of it is held, a semaphore when fewer of its permits are held than it
 * gives ({@code permit-unserved}). A leadership is wanted while some worker campaigns for
 * it and held during its terms: no leader for that long while a standby campaigns is
 * {@code leader-missing}; a term whose leader was killed may be held for
 * {@link #UNRENEWED_KEY_LIFE} after the kill, so a standby must take over within that and
 * the bound.
 * <p>
 * A waiting writer must not be starved by readers: the checker takes the times it was
 * waiting, and removes those a fault may have held it up and those some hold may have
 * kept it out: a write hold, or a read share whose acquisition began before the writer's,
 * or within {@link #READER_HEAD_START} after it, before the writer could join the queue.
 * No stretch of what is left may last {@link #BOUND} ({@code writer-starved}).
 * <p>
 * The lock may be held, for all the checker knows:
 * <ul>
 * <li>from when a hold was granted until {@link #KEPT_AFTER_RELEASE} after its release
 * returned, when it was released without a loss: its fencing token, issued from the
 * server's clock in microseconds, which is the machine's, tells within microseconds when
 * it was granted, however late its worker got to record it (a hold handed over to a
 * thread that runs late, say);</li>
 * <li>otherwise until {@link #UNRENEWED_KEY_LIFE} after the first moment it was no longer
 * renewed (reported lost, release begun, or its worker killed), forever when none is
 * known, and no later than its fixed lease plus the lock delay after it was granted; a
 * fault on its worker meanwhile (a renewal delivered late) keeps it until
 * {@link #AFTERMATH} after the fault;</li>
 * <li>from the start of an acquisition under way when its worker was killed until
 * {@link #UNRENEWED_KEY_LIFE} after the kill, and from the start of a fault on a worker
 * during an acquisition that failed until {@link #UNRENEWED_KEY_LIFE} after the fault or
 * the failure: a grant the worker never recorded.</li>
 * </ul>
 * A fault on Redis (paused, restarted, flushed) excuses every lock from its start to
 * {@link #AFTERMATH} after its end. A fault on one worker (its network stalled, cut or
 * slowed, the worker paused, whether waiting, holding or neither) excuses that worker's
 * waits as long, not the others': a grant offered to a worker that cannot take it must
 * pass to the next waiter within the bound. Interrupts, waits that run out, cancellations
 * and kills excuse nothing: a waiter that gives up or dies must not keep the lock from
 * the others.
 */
final class LivenessChecks {

	/**
	 * The longest a key may outlive the moment its lock was last granted or renewed (the
	 * lease plus the lock delay), and a command timeout more for a renewal under way.
	 */
	static final long UNRENEWED_KEY_LIFE = micros(
			CheckWorkerMain.LEASE.plus(CheckWorkerMain.LOCK_DELAY).plus(CheckWorkerMain.COMMAND_TIMEOUT).toMillis());

	/** The longest lock delay of the workers. */
	static final long LOCK_DELAY = micros(CheckWorkerMain.LOCK_DELAY.toMillis());

	/**
	 * How long a released lock may stay: the rest of a minimum hold time (150 ms in
	 * {@link CheckedService}) or of the lock delay of a hold whose lease ran out.
	 */
	static final long KEPT_AFTER_RELEASE = LOCK_DELAY;

	/**
	 * The longest a free lock may stay unserved while wanted: its waiters look again at
	 * the latest when the key they found would expire (the lease plus the lock delay),
	 * and get an answer within a command timeout; a grant offered to a waiter that does
	 * not take it lapses within its claim time (a few hundred milliseconds), and the next
	 * waiter looks again within about a second.
	 */
	static final long BOUND = UNRENEWED_KEY_LIFE;

	/** How long after a fault ended it may still hold up a grant. */
	static final long AFTERMATH = UNRENEWED_KEY_LIFE;

	/**
	 * How long after a writer began to acquire a reader may still come first: the
	 * writer's first attempt, which queues it, may take a command timeout.
	 */
	static final long READER_HEAD_START = micros(CheckWorkerMain.COMMAND_TIMEOUT.toMillis());

	private static final Set<String> DELAYING_FAULTS = Set.of("redis-pause", "redis-restart", "redis-flush",
			"proxy-stall", "proxy-cut", "proxy-latency", "jvm-pause", "waiter-pause", "holder-pause", "rival-pause",
			"delay-pause", "share-pause", "renewal-pause", "holder-cut", "reply-lag", ClockSteps.KIND);

	private final CheckHistory history;

	private final Violations violations;

	/** Faults on Redis, which may hold up every grant, with their aftermath. */
	private final List<Interval> everyLockExcused = new ArrayList<>();

	/** Faults that may hold up one worker, by incarnation. */
	private final Map<String, List<Interval>> workerFaults;

	/**
	 * When each worker got its first answer from Redis to an acquisition: the first calls
	 * of a JVM just started are slow, whether the lock is free or not.
	 */
	private final Map<String, Long> warmAt;

	private long watchedMicros;

	private long freeMicros;

	private int stretches;

	private long longestMicros;

	private long readersBehindWriters;

	LivenessChecks(CheckHistory history, Violations violations) {
		this.history = history;
		this.violations = violations;
		List<Fault> delaying = history.faults.stream()
			.filter((fault) -> DELAYING_FAULTS.contains(fault.kind()))
			.toList();
		delaying.stream()
			.filter((fault) -> fault.worker() == null)
			.forEach((fault) -> this.everyLockExcused.add(aftermathOf(fault)));
		this.workerFaults = delaying.stream()
			.filter((fault) -> fault.worker() != null)
			.collect(Collectors.groupingBy(Fault::worker,
					Collectors.mapping((fault) -> new Interval(fault.start(), fault.end()), Collectors.toList())));
		this.warmAt = history.waits.stream()
			.filter((wait) -> wait.outcome().equals("acquired") || wait.outcome().equals("timeout"))
			.collect(Collectors.toMap(Wait::incarnation, Wait::end, Math::min));
	}

	void run() {
		Map<String, List<Hold>> holdsByName = this.history.holds.values()
			.stream()
			.collect(Collectors.groupingBy((hold) -> hold.name));
		Map<String, List<Wait>> waitsByName = this.history.waits.stream().collect(Collectors.groupingBy(Wait::name));
		waitsByName.forEach((name, waits) -> {
			List<Hold> holds = holdsByName.getOrDefault(name, List.of());
			List<Interval> excused = new ArrayList<>(this.everyLockExcused);
			waits.forEach((wait) -> excused.addAll(unrecordedGrants(wait)));
			excused.addAll(killedDuring(name));
			if (waits.stream().anyMatch(Wait::queuesForShares)) {
				waits.forEach((wait) -> excused.addAll(queueHeldUpBy(wait)));
			}
			List<Interval> notExcused = Interval.union(excused.stream());
			List<Interval> held = Interval.coveredAtLeast(holds.stream().map(this::mayBeHeld),
					this.history.capacity(name));
			for (Interval wanted : Interval.union(waits.stream().flatMap((wait) -> wanting(wait).stream()))) {
				for (Interval watched : wanted.minus(notExcused)) {
					this.watchedMicros += watched.length();
					for (Interval free : watched.minus(held)) {
						check(name, free, waits, holds);
					}
				}
			}
			List<Wait> writers = waits.stream().filter(Wait::isWriter).toList();
			writers.forEach((writer) -> checkWriter(writer, holds, notExcused));
			this.readersBehindWriters += waits.stream()
				.filter((reader) -> writers.stream().anyMatch((writer) -> cameBehind(reader, writer)))
				.count();
		});
	}

	/**
	 * Tell whether the given acquisition is a reader's that began while the given writer
	 * waited, past its head start: one that must queue behind it.
	 */
	private static boolean cameBehind(Wait reader, Wait writer) {
		return reader.api().equals(WorkerOps.READ) && reader.start() > writer.start() + READER_HEAD_START
				&& reader.start() < writer.end();
	}

	/**
	 * Check that a writer was not kept waiting by read shares that came after it.
	 */
	private void checkWriter(Wait writer, List<Hold> holds, List<Interval> notExcused) {
		List<Interval> keptOut = Interval.union(holds.stream()
			.filter((hold) -> !hold.isShared() || hold.start <= writer.start() + READER_HEAD_START)
			.map(this::mayBeHeld));
		for (Interval waiting : wanting(writer)) {
			for (Interval watched : waiting.minus(notExcused)) {
				for (Interval starved : watched.minus(keptOut)) {
					if (starved.length() >= BOUND) {
						this.violations.add("writer-starved",
								writer + " was kept out for " + TimeUnit.MICROSECONDS.toMillis(starved.length())
										+ " ms from " + starved.start() + " to " + starved.end()
										+ " by no write hold nor read share that came before it");
					}
				}
			}
		}
	}

	/**
	 * Return when a fault on a worker that waited for a read/write lock or a semaphore
	 * may have held up every waiter of its name: its place at the head of the queue is
	 * kept until it expires.
	 */
	private List<Interval> queueHeldUpBy(Wait wait) {
		return faultsOn(wait.incarnation()).stream()
			.filter((fault) -> fault.start() <= wait.end() && fault.end() >= wait.start())
			.map((fault) -> new Interval(fault.start(), fault.end() + AFTERMATH))
			.toList();
	}

	/**
	 * Return what the check saw: how long locks were wanted with no fault to excuse them
	 * (watched), how much of that time they were certainly free, in how many stretches,
	 * and the longest; and how many readers began to acquire while a writer waited, past
	 * its head start, which the writer-starved check would see pass it.
	 * @return the summary, such as {@code {watched=80.2s, free=1.3s, stretches=140,
	 * longest=850ms, readersBehindWriters=12}}
	 */
	String summary() {
		return "{watched=" + seconds(this.watchedMicros) + "s, free=" + seconds(this.freeMicros) + "s, stretches="
				+ this.stretches + ", longest=" + TimeUnit.MICROSECONDS.toMillis(this.longestMicros)
				+ "ms, readersBehindWriters=" + this.readersBehindWriters + "}";
	}

	/**
	 * Return when an acquisition was waiting with wait time left, its worker warmed up
	 * and no fault on it.
	 */
	private List<Interval> wanting(Wait wait) {
		Interval waiting = new Interval(Math.max(wait.start(), this.warmAt.getOrDefault(wait.incarnation(), 0L)),
				Math.min(wait.end(), wait.start() + micros(wait.waitMillis())));
		return waiting.minus(Interval.union(faultsOn(wait.incarnation()).stream()
			.map((fault) -> new Interval(fault.start(), fault.end() + AFTERMATH))));
	}

	/**
	 * Return when an acquisition that failed may have been granted its lock without its
	 * worker ever knowing, because of a fault on the worker while it was under way: until
	 * the key of that grant expired. One that returned a hold was recorded with it; one
	 * whose wait ran out had every attempt answered, and was granted nothing.
	 */
	private List<Interval> unrecordedGrants(Wait wait) {
		if (wait.outcome().equals("acquired") || wait.outcome().equals("timeout")) {
			return List.of();
		}
		return faultsOn(wait.incarnation()).stream()
			.filter((fault) -> fault.start() <= wait.end() && fault.end() >= wait.start())
			.map((fault) -> new Interval(Math.max(wait.start(), fault.start()),
					Math.max(wait.end(), fault.end()) + UNRENEWED_KEY_LIFE))
			.toList();
	}

	/**
	 * Return when a killed worker may have held the given lock, granted to an acquisition
	 * it had under way.
	 */
	private List<Interval> killedDuring(String name) {
		return this.history.unfinishedWaits.stream()
			.filter((wait) -> wait.name().equals(name) && this.history.killedAt.containsKey(wait.incarnation()))
			.map((wait) -> new Interval(wait.start(),
					this.history.killedAt.get(wait.incarnation()) + UNRENEWED_KEY_LIFE))
			.toList();
	}

	private List<Interval> faultsOn(String incarnation) {
		return this.workerFaults.getOrDefault(incarnation, List.of());
	}

	private void check(String name, Interval free, List<Wait> waits, List<Hold> holds) {
		this.freeMicros += free.length();
		this.stretches++;
		this.longestMicros = Math.max(this.longestMicros, free.length());
		if (free.length() < BOUND) {
			return;
		}
		Hold before = holds.stream()
			.filter((hold) -> mayBeHeldUntil(hold) <= free.start())
			.max(Comparator.comparingLong(this::mayBeHeldUntil))
			.orElse(null);
		Hold after = holds.stream()
			.filter((hold) -> hold.grantedAt() >= free.end())
			.min(Comparator.comparingLong(Hold::grantedAt))
			.orElse(null);
		List<Wait> waiting = waits.stream()
			.filter((wait) -> wait.start() < free.end() && wait.end() > free.start())
			.toList();
		this.violations.add(unservedKind(name, waits),
				name + " was free and wanted for " + TimeUnit.MICROSECONDS.toMillis(free.length()) + " ms from "
						+ free.start() + " to " + free.end() + ", after " + before + ", before " + after + "; waiting: "
						+ waiting);
	}

	private String unservedKind(String name, List<Wait> waits) {
		if (this.history.permits.containsKey(name)) {
			return "permit-unserved";
		}
		boolean leadership = waits.stream().anyMatch((wait) -> wait.api().equals(WorkerOps.CANDIDACY));
		return leadership ? "leader-missing" : "lock-unserved";
	}

	private Interval mayBeHeld(Hold hold) {
		return new Interval(hold.grantedAt(), mayBeHeldUntil(hold));
	}

	/**
	 * Return until when the given hold may have kept its lock, as far as the histories
	 * tell (microseconds).
	 */
	private long mayBeHeldUntil(Hold hold) {
		Long lostAt = this.history.lostEvents.get(CheckHistory.lostKey(hold.incarnation, hold.name, hold.token));
		if (hold.releaseOutcome.equals("OK") && lostAt == null) {
			return hold.releaseEnd + KEPT_AFTER_RELEASE;
		}
		long renewedUntil = this.history.killedAt.getOrDefault(hold.incarnation, Long.MAX_VALUE);
		if (lostAt != null) {
			renewedUntil = Math.min(renewedUntil, lostAt);
		}
		if (!hold.releaseOutcome.isEmpty()) {
			renewedUntil = Math.min(renewedUntil, hold.releaseStart);
		}
		long until = (renewedUntil != Long.MAX_VALUE) ? renewedUntil + UNRENEWED_KEY_LIFE : Long.MAX_VALUE;
		if (hold.leaseMillis > 0) {
			until = Math.min(until, hold.grantedAt() + micros(hold.leaseMillis) + LOCK_DELAY);
		}
		for (Interval fault : faultsOn(hold.incarnation)) {
			if (fault.start() <= until && fault.end() > hold.grantedAt()) {
				until = Math.max(until, fault.end() + AFTERMATH);
			}
		}
		return until;
	}

	private static Interval aftermathOf(Fault fault) {
		return new Interval(fault.start(), fault.end() + AFTERMATH);
	}

	private static long micros(long millis) {
		return TimeUnit.MILLISECONDS.toMicros(millis);
	}

	private static double seconds(long micros) {
		return TimeUnit.MICROSECONDS.toMillis(micros) / 1000.0;
	}

}
