package dev.distlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import dev.distlock.testsupport.CommandStats;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * Many locks held at once in watchdog mode: Redis commands per renewal period and the
 * JVM's CPU spent keeping them, and whether every lock is still alive after the measured
 * periods.
 *
 * <p>
 * The CPU is the time the JVM's threads ran ({@link ThreadMXBean#getThreadCpuTime}), read
 * per thread to the nanosecond, less the same reading over one idle period before the
 * acquisitions: the garbage collector and the JIT compiler, which run on threads the JVM
 * hides from that bean, are left out, and so is the process-wide clock, which Linux
 * counts in ticks of 10 ms (1% of a core over a second).
 *
 * @since 0.1.0
 */
public final class HeldLocksScenario {

	private HeldLocksScenario() {
	}

	/**
	 * Run the scenario on every contender that renews held locks, one after the other.
	 * @param contenders the contenders (those without a watchdog are skipped)
	 * @param config lock count, lease and periods
	 * @param redis a connection for checking keys
	 * @param stats Redis command counters
	 * @param goals the goal per contender (docs/design.md#measurable-goals)
	 * @return one row per contender
	 */
	public static List<Row> run(List<Contender> contenders, BenchmarkConfig config, RedisCommands<String, String> redis,
			CommandStats stats, Function<Contender, String> goals) {
		String title = String.format(Locale.ROOT, "%,d held locks, watchdog (lease %d ms)", config.heldLocks(),
				config.leaseTime().toMillis());
		List<Row> rows = new ArrayList<>();
		int index = 0;
		for (Contender contender : contenders) {
			if (contender.renewsHeldLocks()) {
				rows.add(measure(contender, "held." + (index++) + ".", config, redis, stats, title, goals));
			}
		}
		return rows;
	}

	private static Row measure(Contender contender, String prefix, BenchmarkConfig config,
			RedisCommands<String, String> redis, CommandStats stats, String title, Function<Contender, String> goals) {
		long periodNanos = config.renewalPeriod().toNanos();
		long windowNanos = periodNanos * config.renewalPeriods();
		System.gc();
		double idleCpu = cpuOver(periodNanos);
		List<Contender.Held> held = new ArrayList<>(config.heldLocks());
		String[] keys = new String[config.heldLocks()];
		long start = System.nanoTime();
		for (int i = 0; i < config.heldLocks(); i++) {
			held.add(contender.hold(prefix + i));
			keys[i] = contender.redisKey(prefix + i);
		}
		double acquirePerSecond = config.heldLocks() * 1e9 / (System.nanoTime() - start);
		sleep(periodNanos);
		stats.reset();
		double cpu = cpuOver(windowNanos);
		Map<String, Long> calls = stats.calls();
		long scripts = calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
		long total = calls.values().stream().mapToLong(Long::longValue).sum();
		double requestsPerPeriod = (double) scripts / config.renewalPeriods();
		double commandsPerPeriod = (double) total / config.renewalPeriods();
		long alive = 0;
		for (int from = 0; from < keys.length; from += 1000) {
			alive += redis.exists(Arrays.copyOfRange(keys, from, Math.min(keys.length, from + 1000)));
		}
		held.forEach(Contender.Held::close);
		double netPercent = Math.max(0, cpu - idleCpu) * 100;
		String note = String.format(Locale.ROOT,
				"%.1f requests (EVAL/EVALSHA) per renewal period, %.0f commands counting those run inside scripts; %.2f%% of one core (idle %.2f%%); %,d of %,d alive after %d periods; held at %,.0f/s",
				requestsPerPeriod, commandsPerPeriod, netPercent, idleCpu * 100, alive, keys.length,
				config.renewalPeriods(), acquirePerSecond);
		return new Row(contender.name(), title, Double.NaN, Double.NaN, 0, 0, keys.length, alive == keys.length,
				goals.apply(contender), note);
	}

	/**
	 * Return the CPU time the JVM's threads ran over the given wall time, in cores: a
	 * thread started meanwhile counts from its start, one that ended meanwhile not at
	 * all.
	 */
	private static double cpuOver(long nanos) {
		Map<Long, Long> before = threadCpuNanos();
		long wallBefore = System.nanoTime();
		sleep(nanos);
		Map<Long, Long> after = threadCpuNanos();
		long wall = System.nanoTime() - wallBefore;
		long ran = after.entrySet()
			.stream()
			.mapToLong((thread) -> thread.getValue() - before.getOrDefault(thread.getKey(), 0L))
			.sum();
		return (double) ran / wall;
	}

	/**
	 * Return the CPU time of each live thread of the JVM, by thread id.
	 */
	private static Map<Long, Long> threadCpuNanos() {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		Map<Long, Long> cpu = new HashMap<>();
		for (long id : threads.getAllThreadIds()) {
			long nanos = threads.getThreadCpuTime(id);
			if (nanos >= 0) {
				cpu.put(id, nanos);
			}
		}
		return cpu;
	}

	private static void sleep(long nanos) {
		try {
			Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

}
