package dev.distlock.check;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The histories of every worker incarnation and of the nemesis, read back for the checks:
 * the driver of each incarnation, acquisitions (those that threw with their causes),
 * holds (of locks, read/write locks and semaphores) with their validity checks,
 * reentries, releases, loss actions and commits, operations, reads under read holds,
 * upgrade attempts, lost events, the interrupts of fresh registries' waiters, faults and
 * the workers' own reports.
 */
final class CheckHistory {

	/** The faults on a worker's connections, which can lose or hold back its answers. */
	private static final Set<String> NETWORK_FAULTS = Set.of("proxy-stall", "proxy-cut", "proxy-latency", "holder-cut",
			"reply-lag", "renewal-pause");

	/** The faults that cut a worker's connections, losing the answers under way. */
	private static final Set<String> CUTS = Set.of("proxy-cut", "holder-cut");

	/** How long a command waits for its answer before the worker sends it again. */
	private static final long COMMAND_TIMEOUT_MICROS = CheckWorkerMain.COMMAND_TIMEOUT.toNanos() / 1000;

	/** The driver each incarnation talked to Redis through. */
	final Map<String, String> drivers = new TreeMap<>();

	final Map<String, Hold> holds = new LinkedHashMap<>();

	final List<Op> ops = new ArrayList<>();

	/** The writes through the fence, as the fence answered them. */
	final List<FencedWrite> fencedWrites = new ArrayList<>();

	/** What readers saw under their read holds. */
	final List<Read> reads = new ArrayList<>();

	/** Attempts to take the other side of a read/write lock holding one. */
	final List<SideChange> sideChanges = new ArrayList<>();

	/** Attempts to take a held lock or read share again. */
	final List<Reentry> reentries = new ArrayList<>();

	/** How many permits each semaphore gives, by name; a lock gives one. */
	final Map<String, Integer> permits = new HashMap<>();

	final List<Wait> waits = new ArrayList<>();

	/** The acquisitions that threw. */
	final List<FailedWait> failedWaits = new ArrayList<>();

	/** The attempts made to reach Redis after their give-back ({@link GiveBackProbe}). */
	final List<GiveBack> giveBacks = new ArrayList<>();

	/**
	 * How often a fresh registry's waiter was interrupted, by when: {@code subscribing}
	 * while it and another waited for the registry's first subscription, otherwise
	 * {@code early}.
	 */
	final Map<String, Long> freshInterrupts = new TreeMap<>();

	/**
	 * How far the lock Redis' clock was behind the machine's from each moment on
	 * (microseconds), as its steps back ({@link ClockSteps}) left it.
	 */
	private final NavigableMap<Long, Long> clockBehind = new TreeMap<>();

	/**
	 * How far ahead of the clocks of the machine the fencing tokens that a client
	 * proposes are (microseconds): 0 on one Redis, whose tokens come from its clock; on a
	 * Redlock quorum, whose nodes issue the proposed token while their clocks are behind
	 * it, the token less this is no later than the sending of the attempt that got it.
	 */
	private final long tokenLead;

	/**
	 * Create the histories of a run on one Redis.
	 */
	CheckHistory() {
		this(Duration.ZERO);
	}

	/**
	 * Create the histories of a run.
	 * @param tokenLead how far ahead of the clocks the fencing tokens that a client
	 * proposes are
	 */
	CheckHistory(Duration tokenLead) {
		this.tokenLead = TimeUnit.NANOSECONDS.toMicros(tokenLead.toNanos());
	}

	/**
	 * The acquisitions that had begun and not returned when their worker's history ended,
	 * each as a {@link Wait} that ends where it starts.
	 */
	final List<Wait> unfinishedWaits = new ArrayList<>();

	/** When each hold, by {@link #lostKey}, was first reported lost (microseconds). */
	final Map<String, Long> lostEvents = new HashMap<>();

	/**
	 * When a renewal or release found a hold's key or entry gone, by incarnation, name
	 * and fencing token ({@link #lostKey}).
	 */
	final Map<String, Long> foundGone = new HashMap<>();

	/** The holds of {@link #foundGone} that their release found gone, not a renewal. */
	final Set<String> foundGoneByRelease = new HashSet<>();

	final List<Fault> faults = new ArrayList<>();

	final Map<String, Long> killedAt = new HashMap<>();

	/** When each worker was surely frozen ({@code SIGSTOP}), from the faults history. */
	final List<Freeze> freezes = new ArrayList<>();

	final List<String> reports = new ArrayList<>();

	final Map<String, Long> calls = new TreeMap<>();

	/**
	 * Read a worker incarnation's history.
	 * @param incarnation the incarnation's id
	 * @param file its history file
	 */
	void readWorker(String incarnation, Path file) {
		Map<String, Map<String, String>> waitingByThread = new HashMap<>();
		Map<String, Long> campaigningSince = new HashMap<>();
		for (Map<String, String> line : lines(file)) {
			switch (line.get("kind")) {
				case "CANDIDATE" -> campaigningSince.put(line.get("name"), num(line, "start"));
				case "WITHDRAW" -> {
					Long start = campaigningSince.remove(line.get("name"));
					if (start != null) {
						this.waits.add(candidacy(incarnation, line.get("name"), start, num(line, "at")));
					}
				}
				case "GRANTED" -> {
					long at = num(line, "at");
					// Granted in Redis when its token was issued, from the server's
					// clock,
					// which may be well before the event: a data loss in between excuses
					long token = num(line, "token");
					Hold term = new Hold(termId(incarnation, token), incarnation, line.get("name"), token,
							WorkerOps.TERM, Math.min(at, token + clockBehindAt(at)), at, 0);
					term.clockBehind = clockBehindAt(at);
					// A grant told once its term had ended (its worker frozen, or its
					// event thread late, past the lease) was never believed
					if (!"false".equals(line.get("valid"))) {
						term.confirmedUntil = at;
						term.saidLeader = at;
					}
					this.holds.put(term.id, term);
				}
				case "LEADER" -> {
					Hold term = this.holds.get(termId(incarnation, num(line, "token")));
					if (term != null) {
						term.confirmedUntil = Math.max(term.confirmedUntil, num(line, "before"));
						term.saidLeader = Math.max(term.saidLeader, num(line, "before"));
					}
				}
				case "REVOKED" -> {
					Hold term = this.holds.get(termId(incarnation, num(line, "token")));
					if (term != null) {
						term.releaseStart = num(line, "at");
						term.releaseEnd = term.releaseStart;
						term.releaseOutcome = "REVOKED";
						if (term.saidLeader > 0) {
							term.confirmedUntil = Math.max(term.confirmedUntil, term.releaseStart);
						}
					}
				}
				case "DRIVER" -> this.drivers.put(incarnation, line.get("driver"));
				case "ACQ" -> {
					Hold hold = new Hold(line.get("hold"), incarnation, line.get("name"), num(line, "token"),
							line.get("api"), num(line, "start"), num(line, "end"), num(line, "lease"));
					hold.thread = line.get("thread");
					hold.clockBehind = clockBehindAt(hold.acquired);
					hold.delayMillis = Long.parseLong(line.getOrDefault("delay", "0"));
					this.holds.put(hold.id, hold);
					if (line.containsKey("permits")) {
						this.permits.put(hold.name, Integer.parseInt(line.get("permits")));
					}
				}
				case "WAITING" -> waitingByThread.put(line.get("thread"), line);
				case "WAIT" -> {
					waitingByThread.remove(line.get("thread"));
					Wait wait = new Wait(incarnation, line.get("name"), line.get("api"), num(line, "wait"),
							num(line, "start"), num(line, "end"), line.get("outcome"));
					this.waits.add(wait);
					if (!line.get("causes").isEmpty()) {
						this.failedWaits.add(new FailedWait(wait, List.of(line.get("causes").split(",")),
								Boolean.parseBoolean(line.get("interrupted"))));
					}
				}
				case "FRESH" -> this.freshInterrupts.merge(line.get("interrupted"), 1L, Long::sum);
				case "VALID" -> {
					Hold hold = this.holds.get(line.get("hold"));
					if (hold != null && Boolean.parseBoolean(line.get("valid"))) {
						hold.confirmedUntil = Math.max(hold.confirmedUntil, num(line, "before"));
						if (line.containsKey("left")) {
							hold.leaseEnd = Math.max(hold.leaseEnd, num(line, "after") + num(line, "left"));
						}
					}
					else if (hold != null) {
						hold.seenInvalid = true;
					}
				}
				case "REL" -> {
					Hold hold = this.holds.get(line.get("hold"));
					if (hold != null) {
						hold.releaseStart = num(line, "start");
						hold.releaseEnd = num(line, "end");
						hold.releaseOutcome = line.get("outcome");
						hold.releaseAnswerLost = answerMayBeLost(incarnation, hold.releaseStart, hold.releaseEnd);
						boolean reportedLost = this.lostEvents.containsKey(lostKey(incarnation, hold.name, hold.token));
						if (hold.releaseOutcome.equals("OK") && !hold.seenInvalid && !reportedLost) {
							hold.confirmedUntil = Math.max(hold.confirmedUntil, hold.releaseStart);
						}
					}
				}
				case "OP" -> this.ops.add(new Op(line.get("op"), line.get("hold"), line.get("name"), num(line, "token"),
						line.get("fenced"), line.get("plain"), line.get("pred"), num(line, "start"), num(line, "end"),
						Boolean.parseBoolean(line.get("validBefore")), Boolean.parseBoolean(line.get("validAfter"))));
				case "FENCE" -> this.fencedWrites.add(new FencedWrite(line.get("op"), line.get("name"),
						num(line, "token"), line.get("outcome"), num(line, "start"), num(line, "end")));
				case "READ" -> this.reads.add(new Read(line.get("hold"), line.get("name"), line.get("first"),
						line.get("last"), num(line, "start"), num(line, "end"),
						Boolean.parseBoolean(line.get("validBefore")), Boolean.parseBoolean(line.get("validAfter"))));
				case "SIDE" -> this.sideChanges.add(new SideChange(incarnation, line.get("hold"), line.get("change"),
						Boolean.parseBoolean(line.get("valid")), line.get("outcome")));
				case "REENTER" -> {
					Reentry reentry = new Reentry(line.get("hold"), num(line, "start"), num(line, "end"),
							line.get("outcome"));
					this.reentries.add(reentry);
					Hold hold = this.holds.get(reentry.hold());
					if (hold != null && reentry.entered()) {
						// Told it holds the lock: a belief of validity like a VALID
						// line's
						hold.confirmedUntil = Math.max(hold.confirmedUntil, reentry.start());
					}
				}
				case "LOST" -> {
					String key = lostKey(incarnation, line.get("name"), num(line, "token"));
					this.lostEvents.putIfAbsent(key, num(line, "at"));
					if (line.get("reason").contains("found_it_expired")
							&& this.foundGone.putIfAbsent(key, num(line, "at")) == null
							&& line.get("reason").startsWith("its_release")) {
						this.foundGoneByRelease.add(key);
					}
				}
				case "LOSS" -> {
					Hold hold = this.holds.get(line.get("hold"));
					if (hold != null) {
						hold.lossActions++;
					}
				}
				case "COMMIT" -> {
					Hold hold = this.holds.get(line.get("hold"));
					if (hold != null) {
						hold.commitStarts.add(num(line, "start"));
					}
				}
				case "GIVEBACK" ->
					this.giveBacks.add(new GiveBack(incarnation, line.get("name"), num(line, "start"), num(line, "end"),
							Boolean.parseBoolean(line.get("marked")), Boolean.parseBoolean(line.get("taken"))));
				case "CALL" -> this.calls.merge(line.get("api") + ":" + line.get("outcome"), 1L, Long::sum);
				case "HUNG", "HELD" -> this.reports.add(incarnation + " " + line.get("line"));
				case "THREADS" -> {
					if (!line.get("extra").isEmpty()) {
						this.reports.add(incarnation + " " + line.get("line"));
					}
				}
				default -> throw new IllegalStateException("Unknown history line " + line.get("line"));
			}
		}
		Long killedAt = this.killedAt.get(incarnation);
		if (killedAt != null) {
			campaigningSince.forEach((name, start) -> {
				this.waits.add(candidacy(incarnation, name, start, killedAt));
				this.unfinishedWaits
					.add(new Wait(incarnation, name, WorkerOps.CANDIDACY, 0, killedAt, killedAt, "unfinished"));
			});
		}
		waitingByThread.values()
			.forEach((line) -> this.unfinishedWaits.add(new Wait(incarnation, line.get("name"), line.get("api"), 0,
					num(line, "start"), num(line, "start"), "unfinished")));
	}

	/**
	 * Read the nemesis's history of faults, before the workers' histories, whose fencing
	 * tokens its clock steps date.
	 * @param file its history file
	 */
	void readFaults(Path file) {
		for (Map<String, String> line : lines(file)) {
			if (line.get("kind").equals("KILLED")) {
				this.killedAt.put(line.get("incarnation"), num(line, "at"));
			}
			else if (line.get("kind").equals("FROZEN")) {
				this.freezes.add(new Freeze(line.get("incarnation"), num(line, "start"), num(line, "end")));
			}
			else if (line.get("kind").equals("CLOCK")) {
				this.clockBehind.put(num(line, "at"), num(line, "behind"));
			}
			else {
				this.faults.add(new Fault(line.get("fault"), num(line, "start"), num(line, "end"),
						Boolean.parseBoolean(line.get("dataLoss")), line.get("target")));
			}
		}
	}

	/**
	 * Return whether the answer to a command a worker sent and heard back between the
	 * given times may have been lost, so that what it heard is a second attempt's: a cut
	 * of its connections began meanwhile (one that began before cannot have let a first
	 * attempt through), or a stall or latency hit it and the command took a command
	 * timeout or more. A stall healed sooner holds the answer back without losing it.
	 */
	boolean answerMayBeLost(String incarnation, long from, long to) {
		return this.faults.stream()
			.anyMatch((fault) -> CUTS.contains(fault.kind()) && incarnation.equals(fault.worker())
					&& fault.start() >= from && fault.start() <= to)
				|| (to - from >= COMMAND_TIMEOUT_MICROS && networkFaultDuring(incarnation, from, to));
	}

	/**
	 * Return whether a fault on a worker's connections, which can lose or hold back
	 * Redis' answers, hit it between the given times.
	 */
	private boolean networkFaultDuring(String incarnation, long from, long to) {
		return this.faults.stream()
			.anyMatch((fault) -> NETWORK_FAULTS.contains(fault.kind()) && incarnation.equals(fault.worker())
					&& fault.start() <= to && fault.end() >= from);
	}

	/**
	 * Return how far the clock that a fencing token reads was behind the machine's at the
	 * given moment (microseconds): the lock Redis' steps back, less the lead of the
	 * tokens a client proposes.
	 */
	private long clockBehindAt(long at) {
		Map.Entry<Long, Long> step = this.clockBehind.floorEntry(at);
		return ((step != null) ? step.getValue() : 0) - this.tokenLead;
	}

	/**
	 * Return a leadership's candidacy as a wait for its lock that lasted as long, and
	 * that its term, if granted, does not end.
	 */
	private static Wait candidacy(String incarnation, String name, long start, long end) {
		return new Wait(incarnation, name, WorkerOps.CANDIDACY, (end - start) / 1000 + 1, start, end, "candidacy");
	}

	private static String termId(String incarnation, long token) {
		return incarnation + "-term-" + token;
	}

	/**
	 * Return how many holders the named lock or semaphore admits at once.
	 * @param name its name
	 * @return the semaphore's permits, or 1
	 */
	int capacity(String name) {
		return this.permits.getOrDefault(name, 1);
	}

	static String lostKey(String incarnation, String name, long token) {
		return incarnation + "/" + name + "#" + token;
	}

	/**
	 * Tell whether Redis lost its data at some moment between the given times.
	 * @param from the start, in microseconds
	 * @param to the end, in microseconds
	 * @return whether a restart or flush overlapped the interval
	 */
	boolean dataLossBetween(long from, long to) {
		return this.faults.stream().anyMatch((fault) -> fault.dataLoss && fault.start <= to && fault.end >= from);
	}

	/**
	 * Tell whether a fault on a node of a Redlock quorum, or the commands it held up
	 * running late, overlapped the given times: from its start until
	 * {@link NodeFaults#AFTERMATH} after it healed.
	 * @param from the start, in microseconds
	 * @param to the end, in microseconds
	 * @return whether such a fault overlapped the interval
	 */
	boolean nodeFaultNear(long from, long to) {
		return this.faults.stream()
			.anyMatch((fault) -> fault.kind.startsWith(NodeFaults.PREFIX) && fault.start <= to
					&& fault.end + NodeFaults.AFTERMATH.toNanos() / 1000 >= from);
	}

	/**
	 * Return how many data losses began before the given time.
	 * @param time the time, in microseconds
	 * @return the count
	 */
	int dataLossesBefore(long time) {
		return (int) this.faults.stream().filter((fault) -> fault.dataLoss && fault.start < time).count();
	}

	private static List<Map<String, String>> lines(Path file) {
		List<String> raw;
		try {
			raw = Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + file, ex);
		}
		List<Map<String, String>> lines = new ArrayList<>();
		for (String text : raw) {
			if (text.isBlank()) {
				continue;
			}
			String[] fields = text.split(" ");
			Map<String, String> line = new HashMap<>();
			line.put("kind", fields[0]);
			line.put("line", text);
			for (int i = 1; i < fields.length; i++) {
				int equals = fields[i].indexOf('=');
				line.put(fields[i].substring(0, equals), fields[i].substring(equals + 1));
			}
			lines.add(line);
		}
		return lines;
	}

	private static long num(Map<String, String> line, String key) {
		return Long.parseLong(line.get(key));
	}

	/**
	 * One hold as its worker recorded it. Times are wall-clock microseconds:
	 * {@code start} before the acquiring call, {@code acquired} after it returned,
	 * {@code confirmedUntil} the latest moment the holder is known to have believed it
	 * valid (0 if never confirmed).
	 */
	static final class Hold {

		final String id;

		final String incarnation;

		final String name;

		final long token;

		final String api;

		final long start;

		final long acquired;

		/** The fixed lease in milliseconds; 0 for a lease the watchdog renews. */
		final long leaseMillis;

		/** The thread that acquired it. */
		String thread = "";

		/**
		 * Whether a fault on its worker's connections hit it while it was released: a
		 * release that reached Redis and freed the lock may have lost its answer, and
		 * reported the hold lost when sent again.
		 */
		boolean releaseAnswerLost;

		/**
		 * How far the lock Redis' clock, which issued its token, was behind the machine's
		 * when it was acquired (microseconds).
		 */
		long clockBehind;

		/** Its lock delay in milliseconds; 0 for none. */
		long delayMillis;

		long confirmedUntil;

		/**
		 * For a term, the latest moment its leadership said it led ({@code isLeader()}),
		 * its grant until it says so: unlike {@link #confirmedUntil}, never its
		 * revocation; 0 while it never did, as for a grant told once the term had ended.
		 */
		long saidLeader;

		long releaseStart;

		long releaseEnd;

		String releaseOutcome = "";

		/** How many times the hold's loss action ran. */
		int lossActions;

		/** When each commit of a transaction under the hold began. */
		final List<Long> commitStarts = new ArrayList<>();

		/**
		 * Whether a validity check said invalid: a later successful release proves
		 * nothing.
		 */
		boolean seenInvalid;

		/**
		 * The latest end of its lease its holder counted on: when a sample that found it
		 * valid was taken, plus the lease it had left then (microseconds, 0 when
		 * unknown).
		 */
		long leaseEnd;

		Hold(String id, String incarnation, String name, long token, String api, long start, long acquired,
				long leaseMillis) {
			this.id = id;
			this.incarnation = incarnation;
			this.name = name;
			this.token = token;
			this.api = api;
			this.start = start;
			this.acquired = acquired;
			this.leaseMillis = leaseMillis;
		}

		boolean isConfirmed() {
			return this.confirmedUntil >= this.acquired;
		}

		/**
		 * Return whether this is a read share, which other read shares of its name may
		 * overlap.
		 * @return whether it was taken through a read lock
		 */
		boolean isShared() {
			return this.api.equals(WorkerOps.READ);
		}

		/**
		 * Return whether this is a term of a leadership: believed from its grant until
		 * its revocation, and its last look at {@code isLeader()} if later.
		 * @return whether it was told by leadership events
		 */
		boolean isTerm() {
			return this.api.equals(WorkerOps.TERM);
		}

		/**
		 * Return when this hold was granted, within microseconds: the earlier of the
		 * acquisition the worker recorded and its fencing token, which is the server's
		 * clock when the token was issued, or just above, with the steps back of that
		 * clock added (on a Redlock quorum, the token the client proposed, its clock when
		 * it sent the attempt plus the lead, with the lead taken off).
		 * @return the moment (microseconds)
		 */
		long grantedAt() {
			return Math.min(this.acquired, this.token + this.clockBehind);
		}

		/**
		 * Return until when this hold keeps its place from others at least: the last
		 * moment it was believed valid, and, when its lease ran out without a release
		 * (its release found it lost) and it has a lock delay, that delay longer. Its key
		 * or entry lives for the lease and the delay from when a renewal or acquisition
		 * reached Redis, which was after it was sent, and the holder counts its lease
		 * from the sending; a release that finds the lease over leaves it to expire. A
		 * hold of a killed worker without a recorded release counts only as believed: its
		 * release may have reached Redis just before the kill; so does one whose release
		 * found it lost while a fault on its worker's connections may have lost the
		 * answer of an earlier attempt that freed it.
		 * @return the moment (microseconds)
		 */
		long occupiedUntil() {
			boolean ranOut = this.releaseOutcome.equals("LOST") && !this.releaseAnswerLost;
			return (ranOut && !isTerm()) ? this.confirmedUntil + this.delayMillis * 1000 : this.confirmedUntil;
		}

		/**
		 * Return whether this is a permit of a semaphore.
		 * @return whether it was taken through a semaphore
		 */
		boolean isPermit() {
			return this.api.equals(WorkerOps.PERMIT);
		}

		@Override
		public String toString() {
			return this.id + "(" + this.api + " " + this.name + " #" + this.token + " acquired@" + this.acquired
					+ " confirmed@" + this.confirmedUntil + " release=" + this.releaseOutcome + ")";
		}

	}

	/**
	 * One critical-section operation on one hold.
	 */
	record Op(String op, String hold, String name, long token, String fenced, String plain, String predecessor,
			long start, long end, boolean validBefore, boolean validAfter) {

		boolean confirmed() {
			return this.validBefore && this.validAfter;
		}

	}

	/**
	 * One write through the fence.
	 *
	 * @param op the operation that wrote
	 * @param name the lock's name, the fence's resource
	 * @param token the writer's fencing token
	 * @param outcome {@code ACCEPTED}, {@code REFUSED} or {@code ERROR}
	 * @param start before the write was sent (microseconds)
	 * @param end after its answer (microseconds)
	 */
	record FencedWrite(String op, String name, long token, String outcome, long start, long end) {

		boolean accepted() {
			return this.outcome.equals("ACCEPTED");
		}

	}

	/**
	 * What a reader saw of the fenced counter of its read/write lock's name, once when
	 * its read hold began and once before it ended; a writer in between changes it.
	 *
	 * @param hold the read hold
	 * @param name the lock's name
	 * @param first the counter first read, {@code ERROR} if it could not be
	 * @param last the same read last
	 * @param start before the first read (microseconds)
	 * @param end after the last read (microseconds)
	 * @param validBefore whether the hold said valid before the first read
	 * @param validAfter whether the hold said valid after the last read
	 */
	record Read(String hold, String name, String first, String last, long start, long end, boolean validBefore,
			boolean validAfter) {

		boolean confirmed() {
			return this.validBefore && this.validAfter;
		}

	}

	/**
	 * An attempt to take the other side of a read/write lock while holding one.
	 *
	 * @param incarnation the worker incarnation that made it
	 * @param hold the hold it started from
	 * @param change {@code upgrade} (the write lock under a read hold) or
	 * {@code downgrade} (the read lock under a write hold)
	 * @param valid whether that hold said valid just before
	 * @param outcome {@code acquired}, {@code timeout} or {@code refused}
	 */
	record SideChange(String incarnation, String hold, String change, boolean valid, String outcome) {

	}

	/**
	 * One attempt to take again a lock or read share its thread held.
	 *
	 * @param hold the hold taken again
	 * @param start before the attempt, in microseconds
	 * @param end after it returned or threw
	 * @param outcome {@code entered}, {@code refused} or the type of the exception it
	 * threw
	 */
	record Reentry(String hold, long start, long end, String outcome) {

		boolean entered() {
			return this.outcome.equals("entered");
		}

	}

	/**
	 * An attempt that was stalled until after its give-back ({@link GiveBackProbe}).
	 *
	 * @param incarnation the worker incarnation that made it
	 * @param name the lock's name, which nothing else takes
	 * @param start before the probe (microseconds)
	 * @param end after it looked for the lock key (microseconds)
	 * @param marked whether Redis marked the attempt's token given back before the
	 * attempt was let through
	 * @param taken whether the lock key appeared after that
	 */
	record GiveBack(String incarnation, String name, long start, long end, boolean marked, boolean taken) {

	}

	/**
	 * One acquisition, from before the call to after it returned.
	 *
	 * @param incarnation the worker incarnation that made it
	 * @param name the lock's name
	 * @param api how it was made: {@link WorkerOps#WRITE} for a write lock
	 * @param waitMillis the wait time it was given
	 * @param start before the call (microseconds)
	 * @param end after it returned or threw (microseconds)
	 * @param outcome {@code acquired}, {@code timeout} or the type of the exception
	 * thrown
	 */
	record Wait(String incarnation, String name, String api, long waitMillis, long start, long end, String outcome) {

		boolean isWriter() {
			return this.api.equals(WorkerOps.WRITE);
		}

		/**
		 * Return whether it waited in the queue of a read/write lock or a semaphore,
		 * whose releases wake the first waiter instead of granting to it.
		 * @return whether it acquired a side of a read/write lock or a permit
		 */
		boolean queuesForShares() {
			return this.isWriter() || this.api.equals(WorkerOps.READ) || this.api.equals(WorkerOps.PERMIT);
		}

		@Override
		public String toString() {
			return this.incarnation + "(" + this.api + " " + this.name + " wait=" + this.waitMillis + "ms " + this.start
					+ ".." + this.end + " " + this.outcome + ")";
		}

	}

	/**
	 * An acquisition that threw.
	 *
	 * @param acquisition the acquisition
	 * @param causes the class names of what it threw and of its causes, outermost first
	 * @param interrupted whether its thread was interrupted: its interrupt flag set when
	 * it began or threw, or an {@link InterruptedException} among the causes
	 */
	record FailedWait(Wait acquisition, List<String> causes, boolean interrupted) {

	}

	/**
	 * One injected fault, from its first to its last action.
	 * @param kind what it was
	 * @param start when it began (microseconds)
	 * @param end when it was healed (microseconds)
	 * @param dataLoss whether Redis lost its data
	 * @param target what it hit: {@code redis}, a worker's incarnation (followed by
	 * {@code :} and lock names for a fault aimed at a waiter or a holder), or
	 * {@code failed}
	 */
	/**
	 * A time during which a worker incarnation was surely frozen.
	 *
	 * @param incarnation the worker incarnation
	 * @param start when it was frozen, in microseconds
	 * @param end when it was about to be thawed, in microseconds
	 */
	record Freeze(String incarnation, long start, long end) {

	}

	record Fault(String kind, long start, long end, boolean dataLoss, String target) {

		/**
		 * Return the worker incarnation the fault hit alone, if it did.
		 * @return the incarnation, or {@code null} for a fault on Redis or one that
		 * failed
		 */
		@Nullable String worker() {
			String worker = this.target.split(":", 2)[0];
			return worker.startsWith("w") ? worker : null;
		}

	}

}
