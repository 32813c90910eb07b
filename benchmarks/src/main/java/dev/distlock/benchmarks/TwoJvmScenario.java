package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import dev.distlock.testsupport.RivalJvm;

/**
 * Two JVMs, each with 4 threads, on one lock: this JVM and a {@link SecondJvmMain} per
 * contender, started together for every round. Rounds of the contenders are interleaved.
 *
 * @since 0.1.0
 */
public final class TwoJvmScenario {

	static final String TITLE = "2 JVMs x 4 threads, one key";

	private static final int THREADS = 4;

	private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(60);

	private TwoJvmScenario() {
	}

	/**
	 * Run the scenario.
	 * @param ids contender ids, the baseline (spinner) first
	 * @param contenders this JVM's contenders
	 * @param host Redis host
	 * @param port Redis port
	 * @param config round counts and times
	 * @param goals the goal per contender (docs/design.md#measurable-goals)
	 * @return one row per contender
	 */
	public static List<Row> run(List<String> ids, Contenders contenders, String host, int port, BenchmarkConfig config,
			Function<Contender, String> goals) {
		List<RivalJvm> jvms = new ArrayList<>();
		try {
			for (String id : ids) {
				jvms.add(RivalJvm.builder(SecondJvmMain.class)
					.jvmOptions("-Xmx256m")
					.args(id, host, Integer.toString(port), Long.toString(config.leaseTime().toMillis()))
					.start());
			}
			for (RivalJvm jvm : jvms) {
				jvm.awaitLine("READY", ANSWER_TIMEOUT);
			}
			return measure(ids, contenders, jvms, config, goals);
		}
		finally {
			jvms.forEach(RivalJvm::close);
		}
	}

	private static List<Row> measure(List<String> ids, Contenders contenders, List<RivalJvm> jvms,
			BenchmarkConfig config, Function<Contender, String> goals) {
		int n = ids.size();
		List<List<double[]>> rounds = new ArrayList<>();
		List<Samples> waits = new ArrayList<>();
		double[] minJvmShare = new double[n];
		long[] operations = new long[n];
		for (int i = 0; i < n; i++) {
			rounds.add(new ArrayList<>());
			waits.add(new Samples());
			minJvmShare[i] = 1.0;
		}
		int cap = (config.opsCap() > 0) ? config.opsCap() / 2 : 0;
		long millis = config.roundTime().toMillis();
		int roundId = 0;
		for (int round = 0; round < config.warmupRounds() + config.rounds(); round++) {
			boolean measured = round >= config.warmupRounds();
			double[] ops = new double[n];
			for (int k = 0; k < n; k++) {
				int i = (k + round) % n;
				Contender contender = contenders.get(ids.get(i));
				String name = "twojvm." + i;
				String tag = "r" + (roundId++);
				jvms.get(i).send("RUN " + tag + " " + name + " " + THREADS + " " + millis + " " + cap);
				RoundResult local = RoundRunner.run(contender, THREADS, (thread) -> name, true, millis * 1_000_000L,
						cap);
				String[] done = jvms.get(i).awaitLine("DONE " + tag + " ", ANSWER_TIMEOUT).split(" ", 5);
				long remoteOps = Long.parseLong(done[2]);
				long remoteElapsed = Long.parseLong(done[3]);
				long total = local.operations() + remoteOps;
				ops[i] = total * 1e9 / Math.max(local.elapsedNanos(), remoteElapsed);
				if (measured) {
					waits.get(i).addAll(local.latencies());
					waits.get(i).addAll(Samples.fromMicrosText((done.length > 4) ? done[4] : ""));
					minJvmShare[i] = Math.min(minJvmShare[i],
							(double) Math.min(local.operations(), remoteOps) / Math.max(1, total));
					operations[i] += total;
				}
			}
			if (measured) {
				for (int i = 0; i < n; i++) {
					rounds.get(i).add(new double[] { ops[i], ops[i] / ops[0] });
				}
			}
		}
		List<Row> rows = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			double[] ops = rounds.get(i).stream().mapToDouble((r) -> r[0]).toArray();
			double[] ratios = rounds.get(i).stream().mapToDouble((r) -> r[1]).toArray();
			Contender contender = contenders.get(ids.get(i));
			rows.add(new Row(contender.name(), TITLE, ThroughputScenario.median(ops), ThroughputScenario.median(ratios),
					waits.get(i).percentile(50), waits.get(i).percentile(99), operations[i], true,
					goals.apply(contender),
					String.format(Locale.ROOT, "smaller JVM's share %.0f%% (worst round); %d acquisitions",
							minJvmShare[i] * 100, operations[i])));
		}
		return rows;
	}

}
