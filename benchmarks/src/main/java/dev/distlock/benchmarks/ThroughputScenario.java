package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * Lock/unlock throughput of several contenders, interleaved round by round so that drift
 * of a shared machine hits all of them alike, each compared with a baseline run in the
 * same round.
 *
 * @param title the scenario's title in the report
 * @param id a short id used in lock names
 * @param threads how many threads take locks
 * @param sharedKey whether all threads want one lock (contended) or each its own
 * @since 0.1.0
 */
public record ThroughputScenario(String title, String id, int threads, boolean sharedKey) {

	/**
	 * Run the scenario.
	 * @param contenders the contenders, the baseline first
	 * @param config round counts and times
	 * @param goals the goal per contender (docs/design.md#measurable-goals)
	 * @param redis a connection to the contenders' Redis that none of them uses, for its
	 * CPU time
	 * @return one row per contender and each contender's throughput per round
	 */
	public Measured run(List<Contender> contenders, BenchmarkConfig config, Function<Contender, String> goals,
			RedisCommands<String, String> redis) {
		Map<Contender, List<RoundResult>> results = new LinkedHashMap<>();
		Map<Contender, CycleCost> costs = new LinkedHashMap<>();
		contenders.forEach((contender) -> results.put(contender, new ArrayList<>()));
		contenders.forEach((contender) -> costs.put(contender, CycleCost.NONE));
		long roundNanos = config.roundTime().toNanos();
		for (int round = 0; round < config.warmupRounds() + config.rounds(); round++) {
			boolean measured = round >= config.warmupRounds();
			for (int i = 0; i < contenders.size(); i++) {
				Contender contender = contenders.get((i + round) % contenders.size());
				String prefix = this.id + "." + contenders.indexOf(contender);
				CycleCost.Clock before = CycleCost.Clock.read(redis, contender);
				RoundResult result = RoundRunner.run(contender, this.threads,
						(thread) -> this.sharedKey ? prefix : prefix + "." + thread, this.sharedKey, roundNanos,
						config.opsCap());
				CycleCost.Clock after = CycleCost.Clock.read(redis, contender);
				if (measured) {
					results.get(contender).add(result);
					costs.compute(contender, (key, cost) -> cost.plus(before, after, result.operations()));
				}
			}
		}
		Map<Contender, double[]> opsPerRound = new LinkedHashMap<>();
		results.forEach((contender, rounds) -> opsPerRound.put(contender,
				rounds.stream().mapToDouble(RoundResult::opsPerSecond).toArray()));
		double[] baseline = opsPerRound.get(contenders.get(0));
		List<Row> rows = new ArrayList<>();
		Map<Contender, Double> leastShares = new LinkedHashMap<>();
		for (Contender contender : contenders) {
			double[] ops = opsPerRound.get(contender);
			double minShare = results.get(contender)
				.stream()
				.mapToDouble(RoundResult::minShareOfMean)
				.min()
				.orElse(Double.NaN);
			leastShares.put(contender, minShare);
			rows.add(row(contender, results.get(contender), median(ops), medianRatio(ops, baseline), minShare,
					goals.apply(contender))
				.withNote(costs.get(contender).describe(costs.get(contenders.get(0)))));
		}
		return new Measured(rows, opsPerRound, leastShares);
	}

	private Row row(Contender contender, List<RoundResult> rounds, double opsPerSecond, double ratio, double minShare,
			String goal) {
		Samples latencies = new Samples();
		long operations = 0;
		boolean excluded = true;
		for (RoundResult result : rounds) {
			latencies.addAll(result.latencies());
			operations += result.operations();
			excluded &= !this.sharedKey || result.excluded();
		}
		String note = this.sharedKey ? String.format(java.util.Locale.ROOT,
				"least-served thread %.2f of mean share; %d acquisitions", minShare, operations) : "";
		return new Row(contender.name(), this.title, opsPerSecond, ratio, latencies.percentile(50),
				latencies.percentile(99), operations, excluded, goal, note);
	}

	/**
	 * Return the median over rounds of one series' value divided by another's in the same
	 * round.
	 */
	static double medianRatio(double[] values, double[] references) {
		double[] ratios = new double[values.length];
		for (int r = 0; r < values.length; r++) {
			ratios[r] = values[r] / references[r];
		}
		return median(ratios);
	}

	static double median(double[] values) {
		if (values.length == 0) {
			return Double.NaN;
		}
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	/**
	 * What a run measured: one row per contender, and each contender's throughput in
	 * every measured round.
	 *
	 * @param rows the rows, in the contenders' order
	 * @param opsPerRound operations per second per contender and measured round
	 * @param leastShares per contender, in the same order, the least-served thread's
	 * share of the mean share in its worst round
	 */
	public record Measured(List<Row> rows, Map<Contender, double[]> opsPerRound, Map<Contender, Double> leastShares) {

		/**
		 * Return the median over the measured rounds of one contender's throughput
		 * divided by another's in the same round.
		 * @param contender the contender
		 * @param reference the contender it is compared with
		 * @return the median ratio
		 */
		public double ratio(Contender contender, Contender reference) {
			return medianRatio(this.opsPerRound.get(contender), this.opsPerRound.get(reference));
		}

	}

}
