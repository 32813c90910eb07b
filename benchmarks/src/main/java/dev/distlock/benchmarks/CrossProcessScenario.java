package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.distlock.testsupport.CommandStats;

/**
 * Several JVMs on one lock, every one of them spawned ({@link ContenderJvms}, the same
 * heap and contenders in each) while this JVM only coordinates, so that no JVM is
 * favoured: in every round all of them start together, with the same number of threads,
 * on one contender's lock. The contenders' rounds are interleaved, their order rotating
 * each round, and each round's throughput is compared with the naive spinner's of the
 * same round.
 *
 * <p>
 * Measured per contender: acquisitions per second of all JVMs together; the wait from
 * asking for the lock to holding it; each JVM's share of the acquisitions in every round;
 * the Redis commands per acquisition ({@code INFO commandstats} over the measured rounds,
 * which counts the commands scripts run too); the requests per acquisition, a script call
 * counted once ({@code MONITOR}, in one more round of its own since it slows Redis); and
 * the {@code PUBLISH} calls per release. Every holder increments a {@link SharedCounter}
 * that all JVMs map: a lost increment fails the exclusion check.
 *
 * @param jvms how many JVMs take the lock
 * @param threadsPerJvm how many threads each of them runs
 * @since 0.1.0
 */
public record CrossProcessScenario(int jvms, int threadsPerJvm) {

	/** 2 JVMs x 4 threads. */
	public static final CrossProcessScenario TWO_JVMS_FOUR_THREADS = new CrossProcessScenario(2, 4);

	/** 4 JVMs x 1 thread. */
	public static final CrossProcessScenario FOUR_JVMS_ONE_THREAD = new CrossProcessScenario(4, 1);

	/** 8 JVMs x 1 thread. */
	public static final CrossProcessScenario EIGHT_JVMS_ONE_THREAD = new CrossProcessScenario(8, 1);

	/**
	 * Return the scenario's title in the report.
	 * @return the title, such as {@code 2 JVMs x 4 threads, one key}
	 */
	public String title() {
		return this.jvms + " JVMs x " + threads() + ", one key";
	}

	/**
	 * Run the scenario.
	 * @param ids contender ids, the baseline (the naive spinner) first; every JVM has
	 * them connected
	 * @param contenders this JVM's contenders, for their names
	 * @param processes the spawned JVMs, at least {@link #jvms} of them
	 * @param config round counts and times
	 * @param redis the Redis they all use
	 * @param goals the goal per contender (docs/design.md#measurable-goals)
	 * @return the scenario's table
	 */
	CrossProcessTable run(List<String> ids, Contenders contenders, ContenderJvms processes, BenchmarkConfig config,
			WatchedRedis redis, Function<Contender, String> goals) {
		List<Tally> tallies = new ArrayList<>();
		ids.forEach((id) -> tallies.add(new Tally()));
		CommandStats stats = redis.commandStats();
		for (int round = 0; round < config.warmupRounds() + config.rounds(); round++) {
			boolean measured = round >= config.warmupRounds();
			double[] ops = new double[ids.size()];
			for (int k = 0; k < ids.size(); k++) {
				int i = (k + round) % ids.size();
				stats.reset();
				ContenderJvms.Round result = runRound(processes, ids.get(i), i, config);
				Map<String, Long> calls = stats.calls();
				ops[i] = result.opsPerSecond();
				tallies.get(i).add(result, measured, calls);
			}
			if (measured) {
				for (int i = 0; i < ids.size(); i++) {
					tallies.get(i).addRatio(ops[i] / ops[0]);
				}
			}
		}
		for (int i = 0; i < ids.size(); i++) {
			try (MonitoredRequests requests = redis.monitorRequests()) {
				ContenderJvms.Round result = runRound(processes, ids.get(i), i, config);
				tallies.get(i).countRequests(result, requests.stop());
			}
		}
		List<CrossProcessRow> rows = new ArrayList<>();
		for (int i = 0; i < ids.size(); i++) {
			Contender contender = contenders.get(ids.get(i));
			rows.add(tallies.get(i).row(contender, ids.get(i), title(), goals.apply(contender)));
		}
		return new CrossProcessTable(title(), method(config), rows);
	}

	private ContenderJvms.Round runRound(ContenderJvms processes, String id, int index, BenchmarkConfig config) {
		int capPerJvm = (config.opsCap() > 0) ? Math.max(1, config.opsCap() / this.jvms) : 0;
		return processes.run(this.jvms, id, "xproc." + this.jvms + "x" + this.threadsPerJvm + "." + index,
				this.threadsPerJvm, config.roundTime(), capPerJvm);
	}

	private String method(BenchmarkConfig config) {
		return this.jvms + " JVMs, all spawned for the run (" + ContenderJvms.HEAP
				+ ", every contender below connected in each; this JVM only coordinates), " + threads()
				+ " each, one key; " + config.rounds() + " measured rounds of " + config.roundTime().toMillis()
				+ " ms per contender. JVM shares: the smallest share of the acquisitions any JVM took, in the worst"
				+ " round / in the median round. commands/acq: INFO commandstats over the measured rounds, commands"
				+ " run by scripts included; requests/acq: a script call counted once, from MONITOR over one more"
				+ " round; publishes/release: PUBLISH calls by clients or scripts over the measured rounds.";
	}

	private String threads() {
		return this.threadsPerJvm + ((this.threadsPerJvm == 1) ? " thread" : " threads");
	}

	/**
	 * What one contender measured so far.
	 */
	private static final class Tally {

		private final List<Double> ratios = new ArrayList<>();

		private final List<Double> opsPerSecond = new ArrayList<>();

		private final List<Double> leastShares = new ArrayList<>();

		private final Samples waits = new Samples();

		private long acquisitions;

		private long commands;

		private long publishes;

		private double requestsPerAcquisition = Double.NaN;

		private boolean excluded = true;

		void add(ContenderJvms.Round round, boolean measured, Map<String, Long> calls) {
			this.excluded &= round.excluded();
			if (measured) {
				this.opsPerSecond.add(round.opsPerSecond());
				this.leastShares.add(round.leastShare());
				this.waits.addAll(round.waits());
				this.acquisitions += round.total();
				this.commands += calls.values().stream().mapToLong(Long::longValue).sum();
				this.publishes += calls.getOrDefault("publish", 0L) + calls.getOrDefault("spublish", 0L);
			}
		}

		void addRatio(double ratio) {
			this.ratios.add(ratio);
		}

		void countRequests(ContenderJvms.Round round, long requests) {
			this.excluded &= round.excluded();
			this.requestsPerAcquisition = (double) requests / Math.max(1, round.total());
		}

		CrossProcessRow row(Contender contender, String id, String scenario, String goal) {
			double ratio = median(this.ratios);
			double leastShare = this.leastShares.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
			long p99 = this.waits.percentile(99);
			double perAcquisition = Math.max(1, this.acquisitions);
			return new CrossProcessRow(contender.name(), median(this.opsPerSecond), ratio, this.waits.percentile(50),
					p99, this.waits.percentile(100), leastShare, median(this.leastShares),
					this.commands / perAcquisition, this.requestsPerAcquisition, this.publishes / perAcquisition,
					this.acquisitions, this.excluded, goal, Goals.verdicts(scenario, id, ratio, p99, leastShare));
		}

		private static double median(List<Double> values) {
			return ThroughputScenario.median(values.stream().mapToDouble(Double::doubleValue).toArray());
		}

	}

}
