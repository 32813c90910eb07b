package dev.distlock.check;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import dev.distlock.check.WorkerFleet.Status;
import dev.distlock.redis.LockKeys;
import dev.distlock.redis.QuorumNodes;
import dev.distlock.redis.TestDriver;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisTestClient;
import org.jspecify.annotations.Nullable;

/**
 * Injects faults one after the other on a schedule drawn from a seeded {@link Random},
 * each healed before the next, and records each in the faults history
 * ({@code FAULT fault=.. start=.. end=.. dataLoss=.. target=..}; {@code KILLED} for a
 * killed incarnation; {@code FROZEN} for the time a worker was surely frozen, from its
 * {@code SIGSTOP} to its {@code SIGCONT}, without the time a targeted fault took to find
 * it). The fenced registers are never reset: fencing tokens keep increasing when Redis
 * loses its data.
 * <p>
 * Some faults are aimed at a worker by what its status says it does
 * ({@link WorkerFleet#status}): {@code waiter-kill} kills and replaces a worker that
 * waits for a lock held elsewhere, {@code waiter-pause} and {@code holder-pause} freeze
 * one that waits for or holds a lock, from well under the engine's claim time (about 200
 * ms) to beyond a lease, and {@code waiter-interrupt} interrupts a thread that is
 * acquiring a lock; {@code holder-flush} empties Redis while a worker holds a lock that
 * another of its threads waits for, so that the holder's release hands over a lock Redis
 * no longer has. {@code rival-pause} freezes a worker that keeps a lock or write lock
 * past its lease until a worker of another JVM holds it, one that waited for it or, on
 * one Redis, one sent to take it, and {@code delay-pause} a worker with a lock delay that
 * keeps a hold for just longer than its lease, within the delay; both thaw a holder that
 * keeps its hold, and looks at its validity, a while longer ({@link KeptHolds}).
 * {@code release-flush} empties Redis while a worker is about to release a lock another
 * of its threads waits for, after its last renewal: its hand-over must find the lock
 * gone, and {@code rival-flush} also has a worker of another JVM take the lock at once,
 * so that the hand-over finds it someone else's. {@code holder-cut} cuts the connections
 * of a worker that keeps a lock or permit a worker of another JVM waits for, for longer
 * than its lease and lock delay. {@code share-pause} freezes a worker without a lock
 * delay that keeps a read share or permit, just after its renewal, until just before its
 * lease runs out, while a worker of another JVM tries the same name without waiting, so
 * that Redis looks for expired entries of that name meanwhile. {@code rival-transfer} has
 * a worker hold a free lock with another of its threads waiting, parks its release,
 * empties Redis and has a worker of another JVM take the lock before the release goes on.
 * {@code give-back-probe} has a worker stall one pooled connection under an attempt until
 * after its give-back ({@link GiveBackProbe}). {@code lease-out-release} stalls a worker
 * that holds every permit of a semaphore until their lease ran out, and lets its releases
 * through at once while a rival waits. {@code reply-lag} delays the replies to a worker
 * of a lock that a rival waits for, then holds its commands while the replies flow on,
 * until the rival holds the lock. {@code renewal-pause} holds a worker's commands, just
 * after a renewal of the holds it keeps, until the next renewal is among them, freezes
 * the worker (one on Spring Data Redis with Jedis), and lets them through during the
 * freeze: Redis then counts the holds' leases from later than the worker does, past the
 * thaw. {@code grant-echo} publishes every grant message once more, late
 * ({@link GrantEchoes}), and {@code grant-drop} loses them: Redis closes every
 * subscriber's connection again and again for a while ({@link GrantDrops}).
 * {@code clock-step} ({@link ClockSteps}) steps the lock Redis' clock back while a worker
 * holds a lock, now and then, where the server's clock can be stepped.
 * {@code delay-pause}, {@code rival-pause}, {@code lease-out-release},
 * {@code rival-transfer}, {@code reply-lag}, {@code renewal-pause}, {@code share-pause}
 * and {@code give-back-probe} are also due in turn every few seconds
 * ({@link AimedFaults}), as {@code delay-pause} and {@code rival-pause} are on a quorum.
 * A targeted fault that finds no such worker is counted as {@code <kind>-missed} and not
 * recorded.
 * <p>
 * On a Redlock quorum, the faults on the lock Redis are {@link NodeFaults} on one node at
 * a time, and only the faults on workers that locks, leases and leaderships meet are
 * drawn; the nodes' clocks are not stepped.
 */
final class Nemesis {

	private static final String[] KINDS = { "interrupt", "interrupt", "interrupt", "interrupt", "interrupt",
			"interrupt", "jvm-pause", "jvm-pause", "redis-pause", "proxy-stall", "proxy-stall", "proxy-cut",
			"proxy-cut", "proxy-latency", "redis-restart", "redis-flush", "jvm-kill", "waiter-kill", "waiter-pause",
			"waiter-pause", "holder-pause", "holder-flush", "waiter-interrupt", "waiter-interrupt", "rival-pause",
			"delay-pause", "delay-pause", "release-flush", "rival-flush", "holder-cut", "rival-transfer",
			"give-back-probe", "lease-out-release", "reply-lag", "reply-lag", "reply-lag", "grant-echo", "grant-echo",
			"grant-drop", "grant-drop" };

	/**
	 * The faults aimed at rare moments that are due in turn on one Redis
	 * ({@link AimedFaults}), beside those drawn at random. A run of a minute gets through
	 * about one and a half rotations, so the kinds that each catch one kind of bug alone
	 * come early.
	 */
	private static final List<String> AIMED = List.of("delay-pause", "rival-pause", "reply-lag", "give-back-probe",
			"renewal-pause", "delay-pause", "rival-transfer", "lease-out-release", "delay-pause", "share-pause",
			"rival-pause");

	/**
	 * What the {@code delay-pause} faults aim at in turn (0: a lock, 1: a read share or
	 * permit, 2: the leader): a lock and the leader twice in a run of a minute, a share
	 * once, since {@code share-pause} aims at shares too. The next aim's turn comes once
	 * a fault hit the one before, or {@link #MISSES_PER_AIM} missed it.
	 */
	private static final int[] DELAY_PAUSE_AIMS = { 0, 2, 1 };

	/**
	 * How many {@code delay-pause} faults in a row may find nothing to hit for one aim
	 * before the next aim's turn comes: a moment that no worker meets for a while is
	 * tried once more, and one that none can meet (no worker has a lock delay) does not
	 * keep the others' turns.
	 */
	private static final int MISSES_PER_AIM = 2;

	/**
	 * The faults aimed at rare moments that are due in turn on a Redlock quorum.
	 */
	private static final List<String> QUORUM_AIMED = List.of("delay-pause", "rival-pause");

	/**
	 * The kinds of faults on workers that lock on a Redlock quorum: those on the workers
	 * that locks, leases and leaderships meet (no read/write locks or semaphores, and no
	 * flush, which one node that keeps running cannot tell), and twice each fault of
	 * {@link NodeFaults}.
	 */
	private static final String[] QUORUM_KINDS = { "interrupt", "interrupt", "interrupt", "interrupt", "interrupt",
			"interrupt", "jvm-pause", "jvm-pause", "proxy-stall", "proxy-stall", "proxy-cut", "proxy-cut",
			"proxy-latency", "jvm-kill", "waiter-kill", "waiter-pause", "waiter-pause", "holder-pause",
			"waiter-interrupt", "waiter-interrupt", "rival-pause", "delay-pause", "delay-pause", "holder-cut",
			"node-kill", "node-kill", "node-pause", "node-pause", "node-restart", "node-restart", "node-partition",
			"node-partition" };

	/**
	 * How long a {@code rival-pause} keeps its holder frozen at most while no rival takes
	 * the lock: beyond the lease and the lock delay, and the time a waiter takes to see
	 * the lock expired.
	 */
	private static final long RIVAL_PAUSE_MILLIS = 4000;

	/**
	 * How much longer than a lease a {@code rival-pause} or a {@code delay-pause} lasts
	 * at least, so that the holder's lease surely ran out (the margin of
	 * {@code valid-after-lease}), and a rival that holds a read share or permit beside it
	 * from before does not end a {@code rival-pause}.
	 */
	private static final long FREEZE_MARGIN_MILLIS = 200;

	/**
	 * How long a {@code give-back-probe} waits for its worker at most: a command timeout
	 * for the stalled attempt, and the probe's looks at Redis.
	 */
	private static final Duration PROBE_BOUND = Duration.ofSeconds(6);

	/**
	 * How much a {@code lease-out-release} slows its worker's network before the stall:
	 * less than the lock delay, so that the releases it lets through reach Redis within
	 * the delay of the holder's last look.
	 */
	private static final long LEASE_OUT_LATENCY_MILLIS = 300;

	/**
	 * How long a {@code lease-out-release} waits for its holder to take the permits, and
	 * for their lease to run out.
	 */
	private static final Duration LEASE_OUT_BOUND = Duration.ofSeconds(4);

	/**
	 * How long a {@code delay-pause} or {@code share-pause} waits at most for its hold's
	 * next renewal before it freezes the worker: a watchdog period (a third of the lease)
	 * and some more.
	 */
	private static final Duration RENEWAL_WAIT = Duration.ofMillis(700);

	/**
	 * How long a watch of the leader's thaw ({@link ThawWatch}) takes at most to start,
	 * and to stop once the leader was thawed.
	 */
	private static final Duration WATCH_BOUND = Duration.ofSeconds(1);

	/**
	 * How long a freeze waits before it reads a lock's key: long enough for a renewal
	 * sent just before the freeze to arrive.
	 */
	private static final long IN_FLIGHT_MILLIS = 20;

	/**
	 * How long a {@code renewal-pause} holds a worker's commands once it froze it: long
	 * enough that Redis counts the renewal among them from well after the freeze began,
	 * short enough that the renewal still finds the holds it renews.
	 */
	private static final long RENEWAL_HELD_MILLIS = 700;

	/**
	 * How long before its next renewal is due a {@code renewal-pause} holds a worker's
	 * commands: long enough to be sure to hold that renewal, short enough that the
	 * commands of its other threads take few of its pool's connections meanwhile, which
	 * the renewal would wait for until the thaw.
	 */
	private static final long RENEWAL_STALL_LEAD_MILLIS = 100;

	/**
	 * How much longer a {@code renewal-pause} has its worker keep its holds: the wait for
	 * a renewal and the time its commands are held before the freeze, and a while after
	 * the thaw.
	 */
	private static final long RENEWAL_PAUSE_KEEP_MILLIS = 2_500;

	/** How many rounds of status questions a targeted fault asks before it gives up. */
	private static final int TARGET_ROUNDS = 10;

	/**
	 * How many rounds the faults aimed at a moment that needs two workers, or a hold kept
	 * a while longer, ask before they give up.
	 */
	private static final int AIMED_ROUNDS = 40;

	/**
	 * How many rounds a {@code share-pause} asks before it gives up: often only one
	 * worker has no lock delay, and the read shares and permits it keeps a while longer
	 * may be gone for several seconds at a time.
	 */
	private static final int SHARE_ROUNDS = 100;

	private final Random random;

	private final String[] kinds;

	private final WorkerFleet fleet;

	/** The lock Redis, for workers that lock on one. */
	private final @Nullable RedisServer redis;

	/** The faults on the nodes, for workers that lock on a Redlock quorum. */
	private final @Nullable NodeFaults nodes;

	private final History faults;

	/** The steps of the lock Redis' clock, for workers that lock on one. */
	private final @Nullable ClockSteps clockSteps;

	private final AimedFaults aimed;

	private final Map<String, Integer> injected = new TreeMap<>();

	/** Whose turn it is among the {@code delay-pause} aims. */
	private int delayPauseTurn;

	/** How many {@code delay-pause} faults in a row found nothing for this turn's aim. */
	private int delayPauseMisses;

	/** How many releases the nemesis parked, for their ids. */
	private int parkedReleases;

	/** How many give-backs the nemesis probed, for their ids. */
	private int probes;

	/** How many thaws of the leader the nemesis had watched, for their ids. */
	private int thawWatches;

	/** How many permits' leases the nemesis let run out, for their ids. */
	private int leaseOuts;

	/**
	 * Create the nemesis of workers that lock on one Redis.
	 * @param seed the seed of the schedule
	 * @param fleet the workers
	 * @param redis the lock Redis
	 * @param faults the faults history
	 * @param clockSteps the steps of the lock Redis' clock
	 */
	Nemesis(long seed, WorkerFleet fleet, RedisServer redis, History faults, ClockSteps clockSteps) {
		this.random = new Random(seed);
		this.kinds = KINDS;
		this.aimed = new AimedFaults(AIMED);
		this.fleet = fleet;
		this.redis = redis;
		this.nodes = null;
		this.faults = faults;
		this.clockSteps = clockSteps;
	}

	/**
	 * Create the nemesis of workers that lock on a Redlock quorum: the faults on workers
	 * that apply to locks, leases and leaderships, and {@link NodeFaults} on one node at
	 * a time.
	 * @param seed the seed of the schedule
	 * @param fleet the workers
	 * @param nodes the quorum
	 * @param faults the faults history
	 */
	Nemesis(long seed, WorkerFleet fleet, QuorumNodes nodes, History faults) {
		this.random = new Random(seed);
		this.kinds = QUORUM_KINDS;
		this.aimed = new AimedFaults(QUORUM_AIMED);
		this.fleet = fleet;
		this.redis = null;
		this.nodes = new NodeFaults(nodes, fleet, this.random);
		this.faults = faults;
		this.clockSteps = null;
	}

	/**
	 * Inject faults for the given time.
	 * @param duration how long
	 */
	void runFor(Duration duration) {
		long deadline = System.nanoTime() + duration.toNanos();
		while (System.nanoTime() - deadline < 0) {
			String kind = (this.clockSteps != null && this.clockSteps.due()) ? ClockSteps.KIND : this.aimed.due();
			if (kind == null) {
				kind = this.kinds[this.random.nextInt(this.kinds.length)];
			}
			if (kind.startsWith("redis-") && !kind.equals("redis-pause") && this.random.nextInt(3) != 0) {
				kind = "interrupt";
			}
			if (kind.equals("jvm-kill") && this.random.nextInt(4) != 0) {
				kind = "proxy-cut";
			}
			if (kind.equals("waiter-kill") && this.random.nextInt(2) != 0) {
				kind = "waiter-pause";
			}
			long start = History.now();
			boolean dataLoss = kind.equals("redis-restart") || kind.endsWith("-flush");
			String target;
			try {
				target = inject(kind);
				this.injected.merge((target != null) ? kind : kind + "-missed", 1, Integer::sum);
			}
			catch (RuntimeException ex) {
				target = "failed";
				this.injected.merge(kind + "-failed", 1, Integer::sum);
			}
			if (target != null) {
				this.faults.record("FAULT", "fault", kind, "start", start, "end", History.now(), "dataLoss", dataLoss,
						"target", target);
				if (dataLoss && this.clockSteps != null) {
					this.clockSteps.dataLost();
				}
			}
			pause(this.random.nextInt(100));
		}
	}

	/**
	 * Return how many faults were injected, by kind, with the targeted ones that found no
	 * worker to hit ({@code <kind>-missed}) and those that failed
	 * ({@code <kind>-failed}).
	 * @return the counts
	 */
	Map<String, Integer> injected() {
		return this.injected;
	}

	/**
	 * Return how many faults were injected, failed ones included.
	 * @return the count
	 */
	int injectedCount() {
		return this.injected.entrySet()
			.stream()
			.filter((entry) -> !entry.getKey().endsWith("-missed"))
			.mapToInt(Map.Entry::getValue)
			.sum();
	}

	/**
	 * Inject a fault and return what it hit: the worker and the locks it waited for or
	 * held for a targeted fault, otherwise the worker's incarnation or {@code redis};
	 * {@code null} when a targeted fault found no worker to hit.
	 */
	private @Nullable String inject(String kind) {
		return switch (kind) {
			case "waiter-kill" -> targeted(own(Status::waiting), (slot, locks, statuses) -> killAndRespawn(slot));
			case "waiter-pause" ->
				targeted(own(Status::waiting), (slot, locks, statuses) -> freezeAroundClaimTime(slot));
			case "holder-pause" ->
				targeted(own(Status::holding), (slot, locks, statuses) -> freezeAroundClaimTime(slot));
			case "holder-flush" -> targeted(own(Status::queued), (slot, locks, statuses) -> redis().flushAll());
			case "waiter-interrupt" ->
				targeted(own(Status::waiting), (slot, locks, statuses) -> this.fleet.send(slot, "interrupt-waiter"));
			case "rival-pause" -> targeted(this::exclusiveKept, this::freezeUntilRivalHolds, AIMED_ROUNDS);
			case "holder-cut" ->
				targeted(Nemesis::keptWithRival, (slot, locks, statuses) -> cutPastLease(slot), AIMED_ROUNDS);
			case "share-pause" ->
				targeted(this::sharesKeptWithoutLockDelay, this::freezeUntilLeaseNearlyOut, SHARE_ROUNDS);
			case "reply-lag" -> targeted(Nemesis::lockKeptWithRival,
					(slot, locks, statuses) -> lagRepliesThenStallRequests(slot, locks), AIMED_ROUNDS);
			case "release-flush" ->
				targeted(own(Nemesis::queuedAndEnding), (slot, locks, statuses) -> redis().flushAll(), AIMED_ROUNDS);
			case "rival-flush" ->
				targeted(own(Nemesis::lockQueuedAndEnding), this::flushAndTakeElsewhere, AIMED_ROUNDS);
			case "rival-transfer" -> targeted(this::freeLock, this::parkFlushAndTakeElsewhere, AIMED_ROUNDS);
			case "renewal-pause" -> targeted(this::keptOnJedis, this::freezeWhileRenewalHeld, AIMED_ROUNDS);
			case "lease-out-release" ->
				targeted(this::freeSemaphoreWithLockDelay, this::stallUntilLeaseOut, AIMED_ROUNDS);
			case "delay-pause" -> delayPause();
			case ClockSteps.KIND -> (targeted(own(Status::holding),
					(slot, locks, statuses) -> Objects.requireNonNull(this.clockSteps).stepBack(),
					AIMED_ROUNDS) != null) ? "redis" : null;
			case "node-kill", "node-pause", "node-restart", "node-partition" ->
				Objects.requireNonNull(this.nodes, "a node fault drawn on one Redis").inject(kind);
			default -> untargeted(kind);
		};
	}

	/**
	 * Aim at the locks in a field of the worker's own status.
	 */
	private static Aim own(Function<Status, Set<String>> names) {
		return (slot, status, others) -> names.apply(status);
	}

	/**
	 * Aim at the locks a worker keeps a while longer and a worker of another JVM waits
	 * for.
	 */
	private static Set<String> keptWithRival(int slot, Status status, List<Status> others) {
		Set<String> names = new TreeSet<>(status.kept());
		names.retainAll(others.stream().flatMap((other) -> other.waiting().stream()).toList());
		return names;
	}

	/**
	 * Aim at the locks and write locks a worker keeps a while longer and a worker of
	 * another JVM waits for: those that a rival can hold only once the key of the frozen
	 * holder expired, so that its renewal after the thaw meets the rival's key.
	 */
	private static Set<String> exclusiveKeptWithRival(int slot, Status status, List<Status> others) {
		Set<String> names = keptWithRival(slot, status, others);
		names.removeAll(status.shares());
		return names;
	}

	/**
	 * Aim at the locks and write locks a worker keeps a while longer that a worker of
	 * another JVM waits for, or, on one Redis, when none is, at any of them, when another
	 * worker answered too: its rival then takes the lock while the holder is frozen.
	 */
	private Set<String> exclusiveKept(int slot, Status status, List<Status> others) {
		Set<String> waited = exclusiveKeptWithRival(slot, status, others);
		if (!waited.isEmpty() || this.redis == null || others.isEmpty()) {
			return waited;
		}
		Set<String> names = new TreeSet<>(status.kept());
		names.removeAll(status.shares());
		return names;
	}

	/**
	 * Aim at the locks ({@code c:}) a worker keeps a while longer and a worker of another
	 * JVM waits for: those only one worker holds at a time.
	 */
	private static Set<String> lockKeptWithRival(int slot, Status status, List<Status> others) {
		return keptWithRival(slot, status, others).stream()
			.filter((name) -> name.startsWith("c:"))
			.collect(Collectors.toSet());
	}

	/**
	 * Aim at one of the read shares and permits a worker without a lock delay keeps a
	 * while longer ({@code shares=}, not the write holds of the read/write lock's name),
	 * when another worker answered too: Redis drops such a share when its lease ends,
	 * with no delay after it, and the other worker probes it.
	 */
	private Set<String> sharesKeptWithoutLockDelay(int slot, Status status, List<Status> others) {
		if (this.fleet.hasLockDelay(slot) || status.shares().isEmpty() || others.isEmpty()) {
			return Set.of();
		}
		List<String> shares = List.copyOf(new TreeSet<>(status.shares()));
		return Set.of(shares.get(this.random.nextInt(shares.size())));
	}

	/**
	 * Aim at the holds a worker on Spring Data Redis with Jedis keeps a while longer. Its
	 * renewals block on the socket, whose reply is there to be read when the worker is
	 * thawed, while Lettuce's wait for a command timeout, which a freeze past a lease
	 * outlasts, and are often given up at the thaw before their reply is read.
	 */
	private Set<String> keptOnJedis(int slot, Status status, List<Status> others) {
		return (this.fleet.driver(slot) == TestDriver.SPRING_DATA_JEDIS) ? status.kept() : Set.of();
	}

	/**
	 * Aim at the locks a worker is about to release while another of its threads waits
	 * for them.
	 */
	private static Set<String> queuedAndEnding(Status status) {
		Set<String> names = new TreeSet<>(status.queued());
		names.retainAll(status.ending());
		return names;
	}

	/**
	 * Aim at the locks ({@code c:}) a worker is about to release while another of its
	 * threads waits for them: those another worker can take as a plain lock.
	 */
	private static Set<String> lockQueuedAndEnding(Status status) {
		return queuedAndEnding(status).stream().filter((name) -> name.startsWith("c:")).collect(Collectors.toSet());
	}

	/**
	 * Aim at the holds a worker with a lock delay keeps a while longer, as the turn of
	 * the {@code delay-pause} says ({@link #DELAY_PAUSE_AIMS}): at its locks
	 * ({@code c:}), whose renewals are one script, at its read shares and permits
	 * ({@code shares=}), whose renewals are another, or at the leader, which must not say
	 * it leads once thawed.
	 * @param turn which of the three, 0 to 2
	 */
	private Aim keptWithLockDelay(int turn) {
		return (slot, status, others) -> {
			if (turn == 2) {
				return status.holding().contains(WorkerOps.LEADERSHIP) ? Set.of(WorkerOps.LEADERSHIP) : Set.of();
			}
			if (!this.fleet.hasLockDelay(slot)) {
				return Set.of();
			}
			if (turn == 1) {
				return status.shares();
			}
			return status.kept().stream().filter((name) -> name.startsWith("c:")).collect(Collectors.toSet());
		};
	}

	/**
	 * Inject a fault on Redis or on a worker drawn at random, and return which.
	 */
	private String untargeted(String kind) {
		int slot = this.random.nextInt(this.fleet.size());
		String target = (kind.startsWith("redis-") || kind.startsWith("grant-")) ? "redis"
				: this.fleet.incarnation(slot);
		switch (kind) {
			case "interrupt" -> this.fleet.send(slot, "interrupt");
			case "jvm-pause" -> freeze(slot, 300 + this.random.nextInt(2200));
			case "jvm-kill" -> killAndRespawn(slot);
			case "redis-pause" -> {
				redis().pause();
				try {
					pause(100 + this.random.nextInt(1400));
				}
				finally {
					redis().resume();
				}
			}
			case "redis-restart" -> {
				redis().restart();
			}
			case "redis-flush" -> {
				redis().flushAll();
			}
			case "give-back-probe" -> probeGiveBack(slot);
			case "grant-echo" -> echoGrants(300 + this.random.nextInt(1200));
			case "grant-drop" -> GrantDrops.drop(redis().uri(), 300 + this.random.nextInt(1200));
			case "proxy-stall" -> heal(this.fleet.network(slot), () -> this.fleet.network(slot).stall(), 100, 1500);
			case "proxy-cut" ->
				heal(this.fleet.network(slot), () -> this.fleet.network(slot).cutConnections(), 20, 300);
			case "proxy-latency" -> heal(this.fleet.network(slot),
					() -> this.fleet.network(slot).setLatency(Duration.ofMillis(20 + this.random.nextInt(280))), 200,
					800);
			default -> throw new IllegalArgumentException(kind);
		}
		return target;
	}

	/**
	 * Find a worker whose status, beside the others', names some lock the aim picks,
	 * asking the workers in a random order for a few rounds, and hit it for those locks.
	 * @return the worker's incarnation and those locks, or {@code null} if none was found
	 */
	private @Nullable String targeted(Aim aim, Hit fault) {
		return targeted(aim, fault, TARGET_ROUNDS);
	}

	private @Nullable String targeted(Aim aim, Hit fault, int rounds) {
		for (int round = 0; round < rounds; round++) {
			List<Integer> slots = new ArrayList<>(IntStream.range(0, this.fleet.size()).boxed().toList());
			Collections.shuffle(slots, this.random);
			Map<Integer, Status> statuses = new TreeMap<>();
			slots.forEach((slot) -> this.fleet.status(slot).ifPresent((status) -> statuses.put(slot, status)));
			for (int slot : slots) {
				Status status = statuses.get(slot);
				List<Status> others = statuses.entrySet()
					.stream()
					.filter((other) -> other.getKey() != slot)
					.map(Map.Entry::getValue)
					.toList();
				Set<String> locks = (status != null) ? aim.names(slot, status, others) : Set.of();
				if (!locks.isEmpty()) {
					String target = this.fleet.incarnation(slot) + ":" + String.join(",", new TreeSet<>(locks));
					fault.hit(slot, locks, statuses);
					return target;
				}
			}
			pause(50);
		}
		return null;
	}

	private RedisServer redis() {
		return Objects.requireNonNull(this.redis, "a fault on one Redis drawn on a quorum");
	}

	private void killAndRespawn(int slot) {
		this.faults.record("KILLED", "incarnation", this.fleet.incarnation(slot), "at", History.now());
		this.fleet.killAndRespawn(slot);
	}

	/**
	 * Freeze a worker for well under the engine's claim time, around it, or beyond a
	 * lease, each a third of the time.
	 */
	private void freezeAroundClaimTime(int slot) {
		freeze(slot, switch (this.random.nextInt(3)) {
			case 0 -> 20 + this.random.nextInt(100);
			case 1 -> 120 + this.random.nextInt(900);
			default -> 1000 + this.random.nextInt(1500);
		});
	}

	/**
	 * Freeze a worker that keeps a lock past its lease, until another worker holds it (at
	 * most {@value #RIVAL_PAUSE_MILLIS} ms): thawed while the rival holds the lock, the
	 * holder's renewal must find the key someone else's. On one Redis, when no worker has
	 * taken the lock once the lease ran out, a worker of another JVM is sent to take it,
	 * waiting for the rest of that time ({@link WorkerOps#take}).
	 */
	private void freezeUntilRivalHolds(int slot, Set<String> kept, Map<Integer, Status> statuses) {
		int taker = taker(slot, statuses);
		frozen(slot, () -> {
			long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RIVAL_PAUSE_MILLIS);
			pause(CheckWorkerMain.LEASE.toMillis() + FREEZE_MARGIN_MILLIS);
			if (this.redis != null && !heldElsewhere(slot, kept)) {
				this.fleet.send(taker, "take " + kept.iterator().next() + " "
						+ TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
			}
			awaitHeldElsewhere(slot, kept, deadline);
		});
	}

	/**
	 * Wait until another worker holds one of the named locks, or the deadline
	 * ({@link System#nanoTime()}) passed.
	 */
	private void awaitHeldElsewhere(int slot, Set<String> names, long deadline) {
		while (System.nanoTime() - deadline < 0 && !heldElsewhere(slot, names)) {
			pause(20);
		}
	}

	private boolean heldElsewhere(int slot, Set<String> names) {
		for (int other = 0; other < this.fleet.size(); other++) {
			if (other != slot && this.fleet.status(other)
				.map((status) -> !Collections.disjoint(status.holding(), names))
				.orElse(false)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Inject a {@code delay-pause} at this turn's aim ({@link #DELAY_PAUSE_AIMS}), and
	 * pass the turn on once it hit, or missed {@link #MISSES_PER_AIM} times in a row.
	 */
	private @Nullable String delayPause() {
		String target = targeted(keptWithLockDelay(DELAY_PAUSE_AIMS[this.delayPauseTurn % DELAY_PAUSE_AIMS.length]),
				(slot, locks, statuses) -> freezeWithinLockDelay(slot, locks), AIMED_ROUNDS);
		if (target != null || ++this.delayPauseMisses == MISSES_PER_AIM) {
			this.delayPauseTurn++;
			this.delayPauseMisses = 0;
		}
		return target;
	}

	/**
	 * Freeze a worker with a lock delay that keeps a hold until 230 to 350 ms after its
	 * lease ran out, past the check's margin and well within the lock delay: its key or
	 * entry is then kept only by the delay when it thaws, and its renewal must be refused
	 * all the same. A lock's lease end is read from its key in Redis once the worker is
	 * frozen and its last renewal arrived, so that a renewal under way when the freeze
	 * began cannot move it; a share's is the worker's count before the freeze. A hold the
	 * worker does not say how much lease it has left (the leader's term) is frozen for
	 * just longer than a lease and the margin, which thaws it so unless it renewed long
	 * before the freeze, and watched through the thaw ({@link ThawWatch}) first of its
	 * threads ({@link ThawFirst}), so that what it says first once thawed is seen. A
	 * renewed hold is frozen just after a renewal ({@link #awaitRenewal}), so that the
	 * freeze lasts longer than a lease and the margin, as {@code valid-after-lease} needs
	 * to judge the thawed holder's belief.
	 */
	private void freezeWithinLockDelay(int slot, Set<String> names) {
		OptionalLong renewed = awaitRenewal(slot, names);
		long pastLease = FREEZE_MARGIN_MILLIS + 30 + this.random.nextInt(120);
		String lock = names.stream().filter((name) -> name.startsWith("c:")).findFirst().orElse(null);
		if (this.redis != null && lock != null) {
			frozen(slot, () -> {
				pause(IN_FLIGHT_MILLIS);
				long keyLeft = keyMillisLeft(new LockKeys(CheckWorkerMain.KEY_PREFIX).lockKey(lock));
				pause(Math.max(0, keyLeft - CheckWorkerMain.LOCK_DELAY.toMillis() + pastLease));
			});
			return;
		}
		long leaseLeft = renewed.orElse(CheckWorkerMain.LEASE.toMillis());
		if (names.contains(WorkerOps.LEADERSHIP)) {
			String id = this.fleet.incarnation(slot) + "-" + (++this.thawWatches);
			this.fleet.send(slot, "watch-leader " + id);
			if (this.fleet.awaitLine(slot, "WATCHING " + id, WATCH_BOUND)) {
				try (ThawFirst first = new ThawFirst(this.fleet.jvm(slot).pid(), ThawWatch.THREAD_NAME)) {
					frozen(slot, () -> {
						first.apply();
						pause(leaseLeft + pastLease);
					});
					this.fleet.awaitLine(slot, "WATCHED " + id, WATCH_BOUND);
				}
				return;
			}
		}
		freeze(slot, (int) (leaseLeft + pastLease));
	}

	/**
	 * Wait until a worker's kept hold of the given names was just renewed (the lease it
	 * has left went up), at most {@link #RENEWAL_WAIT}; at once if it keeps no valid one,
	 * or none that says how much lease it has left.
	 * @return the lease left at the last look, empty when it keeps no valid hold of those
	 * names
	 */
	private OptionalLong awaitRenewal(int slot, Set<String> names) {
		long deadline = System.nanoTime() + RENEWAL_WAIT.toNanos();
		OptionalLong left = this.fleet.leaseLeft(slot, names);
		while (left.isPresent() && System.nanoTime() - deadline < 0) {
			pause(5);
			OptionalLong next = this.fleet.leaseLeft(slot, names);
			if (next.isEmpty() || next.getAsLong() > left.getAsLong()) {
				return next;
			}
			left = next;
		}
		return left;
	}

	/**
	 * Return how long the lock Redis keeps a key, in milliseconds: 0 when it has none.
	 */
	private long keyMillisLeft(String key) {
		try (RedisTestClient client = RedisTestClient.connect(redis().uri(), CheckWorkerMain.COMMAND_TIMEOUT)) {
			return Math.max(0, client.sync().pttl(key));
		}
	}

	/**
	 * Freeze a worker that keeps a read share or permit, just after its renewal
	 * ({@link #awaitRenewal}), until 150 to 350 ms before the lease it counts on runs
	 * out, about a whole lease, and have a worker of another JVM try the same name
	 * without waiting every 30 to 50 ms until the thaw ({@code probe},
	 * {@link WorkerOps#probe}). Redis drops the entries of a name whose lease ran out
	 * only when a script on that name runs, as each of the rival's attempts does, so an
	 * entry dropped before its lease ran out is then gone: the thawed holder's renewal,
	 * late but within the lease, must find the share Redis still keeps
	 * ({@code lost-early} otherwise), and the rival must not be let in beside it at
	 * capacity. The worker first keeps its holds {@link #RENEWAL_WAIT} longer
	 * ({@code keep}), so that the share outlasts the wait for its renewal and the freeze.
	 */
	private void freezeUntilLeaseNearlyOut(int slot, Set<String> names, Map<Integer, Status> statuses) {
		String name = names.iterator().next();
		this.fleet.send(slot, "keep " + RENEWAL_WAIT.toMillis());
		OptionalLong leaseLeft = awaitRenewal(slot, names);
		if (leaseLeft.isEmpty()) {
			return;
		}
		long thaw = System.nanoTime()
				+ TimeUnit.MILLISECONDS.toNanos(leaseLeft.getAsLong() - 150 - this.random.nextInt(200));
		int prober = taker(slot, statuses);
		frozen(slot, () -> {
			long millis = Math.max(0, TimeUnit.NANOSECONDS.toMillis(thaw - System.nanoTime()));
			this.fleet.send(prober, "probe " + name + " " + millis);
			pause(millis);
		});
	}

	/**
	 * Empty Redis under a worker about to hand a lock over within its JVM, and have a
	 * worker of another JVM take the lock at once: the hand-over must find the lock
	 * another process's.
	 */
	private void flushAndTakeElsewhere(int slot, Set<String> names, Map<Integer, Status> statuses) {
		String name = names.iterator().next();
		int taker = taker(slot, statuses);
		redis().flushAll();
		this.fleet.send(taker, "take " + name);
	}

	/**
	 * Return a worker of another JVM than the given one, one that answered if there is
	 * one. It takes through a registry of its own ({@link WorkerOps#take}), so that none
	 * of its threads that wait for the lock queue it behind them.
	 */
	private int taker(int slot, Map<Integer, Status> statuses) {
		List<Integer> others = new ArrayList<>(IntStream.range(0, this.fleet.size()).boxed().toList());
		others.remove(Integer.valueOf(slot));
		Collections.shuffle(others, this.random);
		return others.stream().filter(statuses::containsKey).findFirst().orElse(others.get(0));
	}

	/**
	 * Aim at a lock ({@code c:}) that no worker that answered holds or waits for, when
	 * another worker answered too.
	 */
	private Set<String> freeLock(int slot, Status status, List<Status> others) {
		return pickFree(WorkerOps.KEYS.stream().map((key) -> "c:" + key).toList(), status, others);
	}

	/**
	 * Aim at a semaphore that no worker that answered holds or waits for, when the worker
	 * has a lock delay and another worker answered too.
	 */
	private Set<String> freeSemaphoreWithLockDelay(int slot, Status status, List<Status> others) {
		return this.fleet.hasLockDelay(slot) ? pickFree(WorkerOps.SEMAPHORES.keySet(), status, others) : Set.of();
	}

	/**
	 * Pick one of the given names that neither the worker nor the others hold or wait
	 * for, none when no other worker answered.
	 */
	private Set<String> pickFree(Collection<String> names, Status status, List<Status> others) {
		Set<String> free = new TreeSet<>(names);
		for (Status any : others) {
			free.removeAll(any.holding());
			free.removeAll(any.waiting());
		}
		free.removeAll(status.holding());
		free.removeAll(status.waiting());
		if (others.isEmpty() || free.isEmpty()) {
			return Set.of();
		}
		return Set.of(List.copyOf(free).get(this.random.nextInt(free.size())));
	}

	/**
	 * Have a worker take a lock, have another of its threads wait for it and park its
	 * release ({@link ParkedReleases}); then empty Redis, recorded as a
	 * {@code redis-flush} of its own so that it excuses only the holds granted before it,
	 * and keeps the clock from being stepped for a while as any data loss does, have a
	 * worker of another JVM take the lock, and once it holds it (or after a second) let
	 * the release go: with no renewal in between, the release's hand-over must find the
	 * lock another process's, and not give it to the waiter.
	 */
	private void parkFlushAndTakeElsewhere(int slot, Set<String> names, Map<Integer, Status> statuses) {
		String name = names.iterator().next();
		String id = this.fleet.incarnation(slot) + "-" + (++this.parkedReleases);
		this.fleet.send(slot, "park-release " + id + " " + name);
		if (!this.fleet.awaitLine(slot, "PARKED " + id, ParkedReleases.BOUND)) {
			return;
		}
		try {
			long start = History.now();
			redis().flushAll();
			this.faults.record("FAULT", "fault", "redis-flush", "start", start, "end", History.now(), "dataLoss", true,
					"target", "redis");
			Objects.requireNonNull(this.clockSteps).dataLost();
			this.fleet.send(taker(slot, statuses), "take " + name);
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
			while (System.nanoTime() - deadline < 0 && !heldElsewhere(slot, Set.of(name))) {
				pause(20);
			}
		}
		finally {
			this.fleet.send(slot, "release-parked " + id);
		}
	}

	/**
	 * Have a worker with a lock delay take every permit of a semaphore, slow its network
	 * by {@value #LEASE_OUT_LATENCY_MILLIS} ms for a few renewals (Redis then counts
	 * their leases from later than the holder does), stall it, have a worker of another
	 * JVM wait for a permit, and heal the stall as soon as the holder's lease ran out and
	 * it sent its releases: they reach Redis while the entries still have more than the
	 * lock delay left, and must keep their places for the delay all the same. Recorded as
	 * a {@code proxy-stall} of the worker of its own, from the latency to the heal.
	 */
	private void stallUntilLeaseOut(int slot, Set<String> names, Map<Integer, Status> statuses) {
		String name = names.iterator().next();
		String id = this.fleet.incarnation(slot) + "-" + (++this.leaseOuts);
		this.fleet.send(slot, "lease-out-release " + id + " " + name);
		if (!this.fleet.awaitLine(slot, "HOLDING " + id, LEASE_OUT_BOUND)) {
			return;
		}
		WorkerNetwork network = this.fleet.network(slot);
		long start = History.now();
		try {
			network.setLatency(Duration.ofMillis(LEASE_OUT_LATENCY_MILLIS));
			pause(CheckWorkerMain.LEASE.toMillis() - LEASE_OUT_LATENCY_MILLIS);
			network.stall();
			this.fleet.send(taker(slot, statuses), "take " + name);
			this.fleet.awaitLine(slot, "RELEASING " + id, LEASE_OUT_BOUND);
		}
		finally {
			network.heal();
			this.faults.record("FAULT", "fault", "proxy-stall", "start", start, "end", History.now(), "dataLoss", false,
					"target", this.fleet.incarnation(slot));
		}
	}

	/**
	 * Hold a worker's commands from just before the renewal of the holds it keeps that
	 * follows the one it just made, until that renewal is among them, freeze the worker,
	 * let the commands through {@value #RENEWAL_HELD_MILLIS} ms into the freeze, and thaw
	 * it a lease and the margin after the freeze began. The holds' validity, counted from
	 * when that renewal was sent, ran out during the freeze, but Redis keeps them a lease
	 * from when it arrived, past the thaw, and would renew them once more: the thawed
	 * holder must find them lost, not valid again ({@code valid-after-lease}). The worker
	 * first keeps its holds {@value #RENEWAL_PAUSE_KEEP_MILLIS} ms longer, so that none
	 * is released while its commands are held and it looks at them once thawed. A worker
	 * whose engine gave the held renewal up at the thaw (its command timeout ran out
	 * meanwhile) finds them lost on that failure.
	 */
	private void freezeWhileRenewalHeld(int slot, Set<String> kept, Map<Integer, Status> statuses) {
		this.fleet.send(slot, "keep " + RENEWAL_PAUSE_KEEP_MILLIS);
		long lease = CheckWorkerMain.LEASE.toMillis();
		long sinceRenewal = lease - awaitRenewal(slot, kept).orElse(lease);
		pause(Math.max(0, lease / 3 - sinceRenewal - RENEWAL_STALL_LEAD_MILLIS));
		WorkerNetwork network = this.fleet.network(slot);
		try {
			network.stallRequests();
			pause(RENEWAL_STALL_LEAD_MILLIS + 50);
			frozen(slot, () -> {
				pause(RENEWAL_HELD_MILLIS);
				network.heal();
				pause(CheckWorkerMain.LEASE.toMillis() + FREEZE_MARGIN_MILLIS + 50 - RENEWAL_HELD_MILLIS);
			});
		}
		finally {
			network.heal();
		}
	}

	/**
	 * Have a worker make an attempt that reaches Redis after its give-back
	 * ({@link GiveBackProbe}), and wait until it recorded what the attempt took.
	 */
	private void probeGiveBack(int slot) {
		String id = this.fleet.incarnation(slot) + "-" + (++this.probes);
		this.fleet.send(slot, "give-back-probe " + id);
		this.fleet.awaitLine(slot, "PROBED " + id, PROBE_BOUND);
	}

	/**
	 * Cut a worker's connections to Redis for longer than its lease and lock delay: its
	 * renewals fail while it keeps looking at its validity, and a rival may take its
	 * place only once its key or entry expired.
	 */
	private void cutPastLease(int slot) {
		int millis = (int) CheckWorkerMain.LEASE.plus(CheckWorkerMain.LOCK_DELAY).toMillis() + 400;
		heal(this.fleet.network(slot), () -> this.fleet.network(slot).cutConnections(), millis, millis + 1);
	}

	/**
	 * Have a worker that keeps a lock a worker of another JVM waits for keep it past the
	 * rest of this fault, and delay the replies to it by 600 to 900 ms, for a watchdog
	 * period and more, so that its last renewal reached Redis that long before its reply
	 * came; then hold its commands while the replies flow on, until the rival holds the
	 * lock (at most its lease, lock delay, the lag and a margin), and the lag longer. Its
	 * lease counts from the sending of that renewal, never from its reply, so it stops
	 * believing in it before Redis lets the rival in.
	 */
	private void lagRepliesThenStallRequests(int slot, Set<String> kept) {
		WorkerNetwork network = this.fleet.network(slot);
		int lagMillis = 600 + this.random.nextInt(300);
		long keyLife = CheckWorkerMain.LEASE.plus(CheckWorkerMain.LOCK_DELAY).toMillis();
		this.fleet.send(slot, "keep " + (keyLife + 2 * lagMillis));
		try {
			network.setReplyLatency(Duration.ofMillis(lagMillis));
			pause(CheckWorkerMain.LEASE.toMillis() / 3 + 50 + this.random.nextInt(200));
			network.stallRequests();
			awaitHeldElsewhere(slot, kept,
					System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(keyLife + lagMillis + FREEZE_MARGIN_MILLIS));
			pause(lagMillis);
		}
		finally {
			network.heal();
		}
	}

	private void freeze(int slot, int millis) {
		frozen(slot, () -> pause(millis));
	}

	/**
	 * Freeze a worker while the given wait lasts, and record the time it was surely
	 * frozen.
	 */
	private void frozen(int slot, Runnable wait) {
		this.fleet.jvm(slot).pause();
		long frozen = History.now();
		try {
			wait.run();
		}
		finally {
			this.faults.record("FROZEN", "incarnation", this.fleet.incarnation(slot), "start", frozen, "end",
					History.now());
			this.fleet.jvm(slot).resume();
		}
	}

	private void heal(WorkerNetwork network, Runnable fault, int minMillis, int maxMillis) {
		try {
			fault.run();
			pause(minMillis + this.random.nextInt(maxMillis - minMillis));
		}
		finally {
			network.heal();
		}
	}

	/**
	 * Which locks of a worker a targeted fault may hit, given its status and the other
	 * workers' statuses.
	 */
	@FunctionalInterface
	private interface Aim {

		/**
		 * Return the names of the locks the fault may hit this worker for, none when it
		 * is no target.
		 * @param slot the worker's slot
		 * @param status its status
		 * @param others the statuses of the other workers that answered
		 * @return the names
		 */
		Set<String> names(int slot, Status status, List<Status> others);

	}

	/**
	 * A targeted fault's blow.
	 */
	@FunctionalInterface
	private interface Hit {

		/**
		 * Hit a worker.
		 * @param slot the worker's slot
		 * @param locks the locks the aim picked
		 * @param statuses the statuses of the workers that answered, by slot
		 */
		void hit(int slot, Set<String> locks, Map<Integer, Status> statuses);

	}

	/**
	 * Echo the grant messages on the lock Redis for a while ({@code grant-echo}).
	 */
	private void echoGrants(long millis) {
		try {
			GrantEchoes.echo(redis().uri(), this.random.nextLong(), millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while echoing grant messages", ex);
		}
	}

	/**
	 * Wait while a fault lasts: the stall is the point.
	 */
	private static void pause(long millis) {
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
	}

}
