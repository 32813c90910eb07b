package dev.distlock.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

import dev.distlock.check.CheckHistory.FencedWrite;
import dev.distlock.check.CheckHistory.Freeze;
import dev.distlock.check.CheckHistory.Hold;
import dev.distlock.check.CheckHistory.Op;
import dev.distlock.check.CheckHistory.Read;

/**
 * The safety checks: no two holds of a name believed valid at once (but read shares of a
 * read/write lock, and the read share its writer takes to downgrade), no more holders of
 * a semaphore believing they hold a permit at once than it gives, no lost update, no
 * writer's update seen by a reader during its read share, and fencing tokens that order
 * the holds of each name (locks, both sides of a read/write lock, permits of a
 * semaphore), across everything, Redis losing its data included. Redis losing its data
 * (restart, flush) is the documented limit that excuses the exclusion checks: it can
 * grant a lock twice, but the later holder's token is greater, so the fenced register
 * still loses no update. Two holds of a name overlap excused only when the data loss came
 * after the earlier of their grants, as their tokens date them: two holds both granted
 * after it had a Redis that knew of the other. No token out of order is excused: a hold
 * handed over within a JVM gets its token from the transfer script that hands it over, so
 * Redis issues it after whatever data it lost. A holder paused past its lease needs no
 * excuse because it is only counted while its own lease check said valid. A fenced write
 * refused while its holder believed it valid is excused by an earlier data loss: the
 * later holder of a double grant wrote with a greater token. No hold may be believed
 * valid after its worker was frozen for longer than its lease: the lease ran out
 * meanwhile. The fence ({@code RedisFence}) of each name never accepts a write whose
 * token is lower than that of a write it accepted before. A hold whose lease ran out
 * without a release keeps its place for its lock delay after the last moment it was
 * believed valid: no other holder may be granted it meanwhile. On a Redlock quorum, a
 * release also finds a hold lost whose lease still ran, when a node of its majority
 * restarted empty, or was paused or cut off until its copy expired, and it then frees the
 * nodes that still hold it at once: a fault on a node, until its late commands surely ran
 * ({@link CheckHistory#nodeFaultNear}), excuses the lock delay, never an overlap. No
 * renewal or release finds a hold gone while the lease its holder counts on still runs,
 * but after a data loss or a fault on a node.
 */
final class SafetyChecks {

	/** Microseconds two confirmed intervals may overlap: the clock is shared. */
	private static final long TOLERANCE = 1_000;

	private static final Set<String> FREEZES = Set.of("jvm-pause", "waiter-pause", "holder-pause", "rival-pause",
			"delay-pause", "share-pause", "renewal-pause");

	/**
	 * Milliseconds by which a freeze must outlast a lease to prove that the lease ran
	 * out: its engine may have renewed it just before.
	 */
	private static final long FREEZE_MARGIN_MILLIS = 200;

	private final CheckHistory history;

	private final Violations violations;

	SafetyChecks(CheckHistory history, Violations violations) {
		this.history = history;
		this.violations = violations;
	}

	void run(Map<String, List<String>> registerLogs) {
		Map<String, List<Hold>> byName = this.history.holds.values()
			.stream()
			.collect(Collectors.groupingBy((hold) -> hold.name));
		byName.forEach((name, holds) -> {
			if (holds.stream().anyMatch(Hold::isPermit)) {
				forEachConfirmedOverlap(holds, (later, active) -> checkPermitCount(name, later, active));
			}
			else {
				forEachConfirmedOverlap(holds, this::checkOverlaps);
			}
			checkTokenOrder(holds);
		});
		checkFenceOrder();
		checkPlainCounters();
		checkRefusedWhileValid();
		checkValidAfterFrozenLease();
		checkFoundGoneEarly();
		checkReads();
		registerLogs.forEach(this::checkRegisterLog);
	}

	/**
	 * Tell the given action, for each hold believed valid at some moment, which holds
	 * acquired before it still kept their place then ({@link Hold#occupiedUntil()}):
	 * beyond its acquisition and the tolerance.
	 */
	private static void forEachConfirmedOverlap(List<Hold> holds, BiConsumer<Hold, List<Hold>> action) {
		List<Hold> confirmed = holds.stream()
			.filter(Hold::isConfirmed)
			.sorted(Comparator.comparingLong((Hold hold) -> hold.acquired))
			.toList();
		List<Hold> active = new ArrayList<>();
		for (Hold later : confirmed) {
			active.removeIf((earlier) -> earlier.occupiedUntil() <= later.acquired + TOLERANCE);
			action.accept(later, active);
			active.add(later);
		}
	}

	private void checkOverlaps(Hold later, List<Hold> active) {
		for (Hold earlier : active) {
			if (mayShare(earlier, later)
					|| this.history.dataLossBetween(Math.min(earlier.grantedAt(), later.grantedAt()), later.acquired)) {
				continue;
			}
			long overlapEnd = Math.min(earlier.confirmedUntil, later.confirmedUntil);
			if (later.acquired + TOLERANCE < overlapEnd) {
				if (!(earlier.isTerm() && frozenBetween(earlier.incarnation, earlier.acquired, later.acquired)
						&& !saidLeaderBeside(earlier, later))) {
					this.violations.add("overlap", "both believed valid for " + (overlapEnd - later.acquired) + " us: "
							+ earlier + " and " + later);
				}
			}
			else if (earlier.confirmedUntil <= later.acquired + TOLERANCE
					&& later.acquired + TOLERANCE < earlier.occupiedUntil()
					&& !this.history.nodeFaultNear(earlier.grantedAt(), later.acquired)) {
				this.violations.add("delay-broken",
						"acquired " + (earlier.occupiedUntil() - later.acquired)
								+ " us before the lock delay of a hold whose lease ran out ended: " + earlier + " and "
								+ later);
			}
		}
	}

	/**
	 * Return whether two holds of a name may be believed valid at once: both read shares,
	 * or a write hold and the read share its own thread took under it (a downgrade).
	 */
	private static boolean mayShare(Hold earlier, Hold later) {
		boolean downgrade = !earlier.isShared() && earlier.incarnation.equals(later.incarnation)
				&& earlier.thread.equals(later.thread);
		return later.isShared() && (earlier.isShared() || downgrade);
	}

	/**
	 * Return whether the leadership of an earlier term said it led while a later term
	 * lasted: a frozen leader may tell its revocation late, but once thawed it never says
	 * it leads after its lease could have run out.
	 */
	private static boolean saidLeaderBeside(Hold earlier, Hold later) {
		return earlier.saidLeader > later.acquired + TOLERANCE && earlier.saidLeader < later.confirmedUntil;
	}

	/**
	 * Return whether a worker was frozen ({@code SIGSTOP}) at some moment between the
	 * given times: a leader frozen when its lease ran out tells its revocation only once
	 * thawed, after another leader may have been granted.
	 */
	private boolean frozenBetween(String incarnation, long from, long to) {
		return this.history.faults.stream()
			.anyMatch((fault) -> FREEZES.contains(fault.kind()) && incarnation.equals(fault.worker())
					&& fault.start() <= to && fault.end() >= from);
	}

	/**
	 * Check that a permit was granted only while fewer holders than the semaphore gives
	 * permits believed theirs valid ({@code permits-exceeded}), or kept their place for
	 * the lock delay after their lease ran out ({@code delay-broken}).
	 */
	private void checkPermitCount(String name, Hold later, List<Hold> active) {
		int permits = this.history.capacity(name);
		long earliestStart = active.stream().mapToLong((hold) -> hold.start).min().orElse(later.start);
		if (active.size() < permits || later.acquired + TOLERANCE >= later.confirmedUntil
				|| this.history.dataLossBetween(Math.min(earliestStart, later.start), later.acquired)) {
			return;
		}
		List<Hold> believed = active.stream()
			.filter((earlier) -> earlier.confirmedUntil > later.acquired + TOLERANCE)
			.toList();
		if (believed.size() >= permits) {
			this.violations.add("permits-exceeded", (believed.size() + 1) + " holders of " + permits
					+ " permits believed valid at once: " + later + " acquired while " + believed);
		}
		else {
			this.violations.add("delay-broken",
					(active.size() + 1) + " holders of " + permits
							+ " permits kept their place at once, some only by the lock delay: " + later
							+ " acquired while " + active);
		}
	}

	private void checkTokenOrder(List<Hold> ordered) {
		Map<Long, Hold> byToken = new HashMap<>();
		for (Hold hold : ordered) {
			Hold other = byToken.putIfAbsent(hold.token, hold);
			if (other != null) {
				this.violations.add("duplicate-token", other + " and " + hold);
			}
		}
		forEachAfterHighest(ordered, (hold) -> hold.start, (hold) -> hold.acquired, (hold) -> hold.token,
				(later, highest) -> {
					if (later.token <= highest.token) {
						this.violations.add("token-order", later + " began after " + highest + " was acquired");
					}
				});
	}

	/**
	 * Check that the fence of each name accepted no write whose token is lower than that
	 * of a write it accepted before: one whose answer came before the later write was
	 * sent. The fence lives in the store, which no fault touches, so nothing excuses it.
	 */
	private void checkFenceOrder() {
		Map<String, List<FencedWrite>> byName = this.history.fencedWrites.stream()
			.filter(FencedWrite::accepted)
			.collect(Collectors.groupingBy(FencedWrite::name));
		byName.values()
			.forEach((writes) -> forEachAfterHighest(writes, FencedWrite::start, FencedWrite::end, FencedWrite::token,
					(later, highest) -> {
						if (later.token() < highest.token()) {
							this.violations.add("fence-order", later + " accepted after " + highest);
						}
					}));
	}

	/**
	 * Tell the given action, for each item that began after another ended, the item of
	 * the highest token among those that ended before it began.
	 */
	private static <T> void forEachAfterHighest(List<T> items, ToLongFunction<T> begin, ToLongFunction<T> end,
			ToLongFunction<T> token, BiConsumer<T, T> action) {
		List<T> byEnd = items.stream().sorted(Comparator.comparingLong(end)).toList();
		List<T> byBegin = items.stream().sorted(Comparator.comparingLong(begin)).toList();
		int next = 0;
		T highest = null;
		for (T later : byBegin) {
			while (next < byEnd.size() && end.applyAsLong(byEnd.get(next)) < begin.applyAsLong(later)) {
				T earlier = byEnd.get(next++);
				if (highest == null || token.applyAsLong(earlier) > token.applyAsLong(highest)) {
					highest = earlier;
				}
			}
			if (highest != null) {
				action.accept(later, highest);
			}
		}
	}

	/**
	 * Check that no hold was believed valid once thawed from a freeze ({@code SIGSTOP})
	 * longer than its lease, begun while it was held: its engine could renew nothing
	 * meanwhile, so its lease ran out, and a lease that ran out is over, even where the
	 * lock delay kept anybody else out. The freeze is the time the worker was surely
	 * frozen, so any look that began after it counts; the freeze must outlast the lease
	 * by {@value #FREEZE_MARGIN_MILLIS} ms.
	 */
	private void checkValidAfterFrozenLease() {
		for (Hold hold : this.history.holds.values()) {
			long leaseMillis = (hold.leaseMillis > 0) ? hold.leaseMillis : CheckWorkerMain.LEASE.toMillis();
			long lease = TimeUnit.MILLISECONDS.toMicros(leaseMillis + FREEZE_MARGIN_MILLIS);
			long believed = hold.isTerm() ? hold.saidLeader : hold.confirmedUntil;
			for (Freeze freeze : this.history.freezes) {
				if (hold.incarnation.equals(freeze.incarnation()) && freeze.start() > hold.acquired
						&& freeze.end() - freeze.start() > lease && believed > freeze.end()) {
					this.violations.add("valid-after-lease", "believed valid at " + believed + ", after a freeze of "
							+ (freeze.end() - freeze.start()) / 1000 + " ms from " + freeze.start() + ": " + hold);
				}
			}
		}
	}

	/**
	 * Check that no renewal or release found a hold's key or entry gone before the end of
	 * the lease its holder counted on ({@code lost-early}), unless Redis lost its data
	 * meanwhile or a node of a quorum had a fault: the holder counts its lease from when
	 * it sent the command that set it, Redis from when that command arrived, so Redis
	 * keeps the key at least that long. A command Redis took up late (paused, or held up
	 * on the network) found the key gone only after that end, and a freeze of the holder
	 * only delays its report. A release whose answer a fault on its worker's connections
	 * may have lost found, when sent again, what its first attempt left.
	 */
	private void checkFoundGoneEarly() {
		for (Hold hold : this.history.holds.values()) {
			String key = CheckHistory.lostKey(hold.incarnation, hold.name, hold.token);
			Long at = this.history.foundGone.get(key);
			if (at != null && at + TOLERANCE < hold.leaseEnd && !this.history.dataLossBetween(hold.start, at)
					&& !this.history.nodeFaultNear(hold.start, at)
					&& !(hold.releaseAnswerLost && this.history.foundGoneByRelease.contains(key))) {
				this.violations.add("lost-early", "found gone " + (hold.leaseEnd - at) / 1000
						+ " ms before the end of the lease its holder counted on: " + hold);
			}
		}
	}

	private void checkPlainCounters() {
		Map<String, List<Op>> byPredecessor = this.history.ops.stream()
			.filter((op) -> op.plain().equals("OK") && !op.predecessor().equals("unknown"))
			.collect(Collectors.groupingBy((op) -> op.name() + "<-" + op.predecessor()));
		for (List<Op> readers : byPredecessor.values()) {
			for (int i = 0; i < readers.size(); i++) {
				for (int j = i + 1; j < readers.size(); j++) {
					Op first = readers.get(i);
					Op second = readers.get(j);
					if (first.confirmed() && second.confirmed()
							&& !this.history.dataLossBetween(Math.min(holdStart(first), holdStart(second)),
									Math.max(first.end(), second.end()))) {
						this.violations.add("lost-update", "both read " + first.name() + " as written by "
								+ first.predecessor() + ": " + first + " and " + second);
					}
				}
			}
		}
	}

	private void checkRefusedWhileValid() {
		for (Op op : this.history.ops) {
			if (op.fenced().startsWith("REFUSED") && op.confirmed() && this.history.dataLossesBefore(op.end()) == 0) {
				this.violations.add("refused-while-valid", op.toString());
			}
		}
	}

	/**
	 * Check that no reader saw the fenced counter change while it believed its read share
	 * valid: the register refuses every writer whose token is below the reader's once the
	 * reader read, so a change means a writer granted after the reader wrote meanwhile.
	 */
	private void checkReads() {
		for (Read read : this.history.reads) {
			Hold hold = this.history.holds.get(read.hold());
			if (read.confirmed() && !read.first().equals("ERROR") && !read.last().equals("ERROR")
					&& !read.first().equals(read.last()) && hold != null
					&& !this.history.dataLossBetween(hold.start, read.end())) {
				this.violations.add("read-changed", read + " under " + hold);
			}
		}
	}

	private void checkRegisterLog(String name, List<String> log) {
		String[] previous = null;
		for (String entry : log) {
			String[] fields = entry.split(" ");
			if (previous != null) {
				if (Long.parseLong(fields[2]) < Long.parseLong(previous[2])) {
					this.violations.add("fenced-order",
							name + ": " + String.join(" ", fields) + " accepted after " + String.join(" ", previous));
				}
				if (!previous[4].equals(fields[3])) {
					this.violations.add("fenced-lost-update",
							name + ": " + String.join(" ", fields) + " follows " + String.join(" ", previous));
				}
			}
			previous = fields;
		}
	}

	private long holdStart(Op op) {
		Hold hold = this.history.holds.get(op.hold());
		return (hold != null) ? hold.start : op.start();
	}

}
