package dev.distlock.check;

import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.TcpProxy;

/**
 * Injects faults one after the other on a schedule drawn from a seeded {@link Random},
 * each healed before the next, and records each in the faults history
 * ({@code FAULT fault=.. start=.. end=.. dataLoss=..}; {@code KILLED} for a killed
 * incarnation). The fenced registers are never reset: fencing tokens keep increasing when
 * Redis loses its data.
 */
final class Nemesis {

	private static final String[] KINDS = { "interrupt", "interrupt", "interrupt", "interrupt", "interrupt",
			"interrupt", "jvm-pause", "jvm-pause", "redis-pause", "proxy-stall", "proxy-stall", "proxy-cut",
			"proxy-cut", "proxy-latency", "redis-restart", "redis-flush", "jvm-kill" };

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
			long start = History.now();
			boolean dataLoss = kind.equals("redis-restart") || kind.equals("redis-flush");
			try {
				inject(kind);
				this.injected.merge(kind, 1, Integer::sum);
			}
			catch (RuntimeException ex) {
				this.injected.merge(kind + "-failed", 1, Integer::sum);
			}
			this.faults.record("FAULT", "fault", kind, "start", start, "end", History.now(), "dataLoss", dataLoss);
			pause(this.random.nextInt(100));
		}
	}

	/**
	 * Return how many faults were injected, by kind.
	 * @return the counts
	 */
	Map<String, Integer> injected() {
		return this.injected;
	}

	private void inject(String kind) {
		int slot = this.random.nextInt(this.fleet.size());
		switch (kind) {
			case "interrupt" -> this.fleet.send(slot, "interrupt");
			case "jvm-pause" -> {
				this.fleet.jvm(slot).pause();
				try {
					pause(300 + this.random.nextInt(2200));
				}
				finally {
					this.fleet.jvm(slot).resume();
				}
			}
			case "jvm-kill" -> {
				this.faults.record("KILLED", "incarnation", this.fleet.incarnation(slot), "at", History.now());
				this.fleet.killAndRespawn(slot);
			}
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
