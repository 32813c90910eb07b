package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.distlock.testsupport.CommandStats;

/**
 * The cost of re-entering a lock the thread already holds: one thread holds the lock and
 * times nested lock/unlock cycles of the same name, counting the Redis commands they
 * send.
 *
 * @since 0.1.0
 */
public final class ReentryScenario {

	static final String TITLE = "reentry (1 thread, nested)";

	private ReentryScenario() {
	}

	/**
	 * Run the scenario on every reentrant contender, interleaved round by round.
	 * @param contenders the contenders (non-reentrant ones are skipped)
	 * @param config round counts and times
	 * @param stats Redis command counters
	 * @return one row per reentrant contender
	 */
	public static List<Row> run(List<Contender> contenders, BenchmarkConfig config, CommandStats stats) {
		List<Contender> reentrant = contenders.stream().filter(Contender::reentrant).toList();
		List<Samples> latencies = new ArrayList<>();
		List<List<Double>> ops = new ArrayList<>();
		long[] operations = new long[reentrant.size()];
		long[] commands = new long[reentrant.size()];
		String[] failures = new String[reentrant.size()];
		reentrant.forEach((contender) -> {
			latencies.add(new Samples());
			ops.add(new ArrayList<>());
		});
		long roundNanos = config.roundTime().toNanos() / 2;
		long cap = (config.opsCap() > 0) ? config.opsCap() : Long.MAX_VALUE;
		for (int round = 0; round < config.warmupRounds() + config.rounds(); round++) {
			boolean measured = round >= config.warmupRounds();
			for (int i = 0; i < reentrant.size(); i++) {
				int index = (i + round) % reentrant.size();
				Contender contender = reentrant.get(index);
				String name = "reentry." + index;
				Samples samples = new Samples();
				long[] count = new long[1];
				long[] elapsed = new long[1];
				Runnable nothing = () -> {
				};
				if (failures[index] != null) {
					continue;
				}
				try {
					contender.locked(name, () -> {
						stats.reset();
						long start = System.nanoTime();
						long deadline = start + roundNanos;
						while (count[0] < cap && System.nanoTime() - deadline < 0) {
							long before = System.nanoTime();
							contender.locked(name, nothing);
							samples.add(System.nanoTime() - before);
							count[0]++;
						}
						elapsed[0] = System.nanoTime() - start;
						if (measured) {
							commands[index] += stats.total();
						}
					});
				}
				catch (RuntimeException ex) {
					failures[index] = ex.toString();
					continue;
				}
				if (measured) {
					latencies.get(index).addAll(samples);
					ops.get(index).add(count[0] * 1e9 / elapsed[0]);
					operations[index] += count[0];
				}
			}
		}
		List<Row> rows = new ArrayList<>();
		for (int i = 0; i < reentrant.size(); i++) {
			double[] perRound = ops.get(i).stream().mapToDouble(Double::doubleValue).toArray();
			String note = String.format(Locale.ROOT, "%.2f Redis commands per reentry",
					(double) commands[i] / Math.max(1, operations[i]))
					+ ((failures[i] != null) ? "; failed: " + failures[i] : "");
			rows.add(new Row(reentrant.get(i).name(), TITLE, ThroughputScenario.median(perRound), Double.NaN,
					latencies.get(i).percentile(50), latencies.get(i).percentile(99), operations[i],
					failures[i] == null, reentrant.get(i).name().startsWith("distlock") ? "no round trip" : "", note));
		}
		return rows;
	}

}
