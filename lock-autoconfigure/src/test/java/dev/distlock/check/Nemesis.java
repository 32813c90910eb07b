package dev.distlock.check;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

import dev.distlock.check.WorkerFleet.Status;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.TcpProxy;
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
 * no longer has. A targeted fault that finds no such worker is counted as
 * {@code <kind>-missed} and not recorded.
 */
final class Nemesis {

	private static final String[] KINDS = { "interrupt", "interrupt", "interrupt", "interrupt", "interrupt",
			"interrupt", "jvm-pause", "jvm-pause", "redis-pause", "proxy-stall", "proxy-stall", "proxy-cut",
			"proxy-cut", "proxy-latency", "redis-restart", "redis-flush", "jvm-kill", "waiter-kill", "waiter-pause",
			"waiter-pause", "holder-pause", "holder-flush", "waiter-interrupt", "waiter-interrupt" };

	/** How many rounds of status questions a targeted fault asks before it gives up. */
	private static final int TARGET_ROUNDS = 10;

	private final Random random;

	private final WorkerFleet fleet;

	private final RedisServer redis;

	private final History faults;

	private final Map<String, Integer> injected = new TreeMap<>();

	Nemesis(long seed, WorkerFleet fleet, RedisServer redis, History faults) {
		this.random = new Random(seed);
		this.fleet = fleet;
		this.redis = redis;
		this.faults = faults;
	}

	/**
	 * Inject faults for the given time.
	 * @param duration how long
	 */
	void runFor(Duration duration) {
		long deadline = System.nanoTime() + duration.toNanos();
		while (System.nanoTime() - deadline < 0) {
			String kind = KINDS[this.random.nextInt(KINDS.length)];
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
			case "waiter-kill" -> targeted(Status::waiting, this::killAndRespawn);
			case "waiter-pause" -> targeted(Status::waiting, this::freezeAroundClaimTime);
			case "holder-pause" -> targeted(Status::holding, this::freezeAroundClaimTime);
			case "holder-flush" -> targeted(Status::queued, (slot) -> this.redis.flushAll());
			case "waiter-interrupt" -> targeted(Status::waiting, (slot) -> this.fleet.send(slot, "interrupt-waiter"));
			default -> untargeted(kind);
		};
	}

	/**
	 * Inject a fault on Redis or on a worker drawn at random, and return which.
	 */
	private String untargeted(String kind) {
		int slot = this.random.nextInt(this.fleet.size());
		String target = kind.startsWith("redis-") ? "redis" : this.fleet.incarnation(slot);
		switch (kind) {
			case "interrupt" -> this.fleet.send(slot, "interrupt");
			case "jvm-pause" -> freeze(slot, 300 + this.random.nextInt(2200));
			case "jvm-kill" -> killAndRespawn(slot);
			case "redis-pause" -> {
				this.redis.pause();
				try {
					pause(100 + this.random.nextInt(1400));
				}
				finally {
					this.redis.resume();
				}
			}
			case "redis-restart" -> {
				this.redis.restart();
			}
			case "redis-flush" -> {
				this.redis.flushAll();
			}
			case "proxy-stall" -> heal(this.fleet.proxy(slot), () -> this.fleet.proxy(slot).stall(), 100, 1500);
			case "proxy-cut" -> heal(this.fleet.proxy(slot), () -> this.fleet.proxy(slot).cutConnections(), 20, 300);
			case "proxy-latency" -> heal(this.fleet.proxy(slot),
					() -> this.fleet.proxy(slot).setLatency(Duration.ofMillis(20 + this.random.nextInt(280))), 200,
					800);
			default -> throw new IllegalArgumentException(kind);
		}
		return target;
	}

	/**
	 * Find a worker whose status names some lock in the given field, asking the workers
	 * in a random order for a few rounds, and hit it.
	 * @return the worker's incarnation and those locks, or {@code null} if none was found
	 */
	private @Nullable String targeted(Function<Status, Set<String>> names, IntConsumer fault) {
		for (int round = 0; round < TARGET_ROUNDS; round++) {
			List<Integer> slots = new ArrayList<>(IntStream.range(0, this.fleet.size()).boxed().toList());
			Collections.shuffle(slots, this.random);
			for (int slot : slots) {
				Set<String> locks = this.fleet.status(slot).map(names).orElse(Set.of());
				if (!locks.isEmpty()) {
					String target = this.fleet.incarnation(slot) + ":" + String.join(",", new TreeSet<>(locks));
					fault.accept(slot);
					return target;
				}
			}
			pause(50);
		}
		return null;
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

	private void freeze(int slot, int millis) {
		this.fleet.jvm(slot).pause();
		long frozen = History.now();
		try {
			pause(millis);
		}
		finally {
			this.faults.record("FROZEN", "incarnation", this.fleet.incarnation(slot), "start", frozen, "end",
					History.now());
			this.fleet.jvm(slot).resume();
		}
	}

	private void heal(TcpProxy proxy, Runnable fault, int minMillis, int maxMillis) {
		try {
			fault.run();
			pause(minMillis + this.random.nextInt(maxMillis - minMillis));
		}
		finally {
			proxy.heal();
		}
	}

	/**
	 * Wait while a fault lasts: the stall is the point.
	 */
	private static void pause(long millis) {
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
	}

}
