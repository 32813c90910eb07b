package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisServerBinary;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import static dev.distlock.benchmarks.Contenders.DISTLOCK_ANNOTATED;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_LEASE;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_LOCK;
import static dev.distlock.benchmarks.Contenders.RAW;
import static dev.distlock.benchmarks.Contenders.REDISSON_FIXED;
import static dev.distlock.benchmarks.Contenders.REDISSON_WATCHDOG;
import static dev.distlock.benchmarks.Contenders.SI_PUBSUB;
import static dev.distlock.benchmarks.Contenders.SI_SPIN;
import static dev.distlock.benchmarks.Contenders.SPINNER;

/**
 * Runs every scenario against one real redis-server, all contenders in this one JVM.
 *
 * @since 0.1.0
 */
public final class Benchmarks {

	private static final List<String> LOCKS = List.of(DISTLOCK_LOCK, DISTLOCK_LEASE, DISTLOCK_ANNOTATED, REDISSON_FIXED,
			REDISSON_WATCHDOG, SI_SPIN, SI_PUBSUB);

	private Benchmarks() {
	}

	/**
	 * Run every scenario.
	 * @param config how long and how hard
	 * @return the header lines and the rows
	 */
	public static Result run(BenchmarkConfig config) {
		List<String> header = new ArrayList<>();
		header.add("mode " + config.mode() + ": " + config.warmupRounds() + " warm-up + " + config.rounds()
				+ " measured rounds of " + config.roundTime().toMillis() + " ms per contender, interleaved"
				+ ((config.opsCap() > 0) ? ", at most " + config.opsCap() + " operations per round" : ""));
		header.add("redis-server " + RedisServerBinary.get().version() + " on loopback; "
				+ Runtime.getRuntime().availableProcessors() + " CPUs; JDK " + System.getProperty("java.version"));
		header.add("ratio: median over rounds of ops/s divided by the baseline's ops/s in the same round "
				+ "(raw floor uncontended, naive 1 ms spinner contended); p50/p99: whole cycle uncontended, "
				+ "wait for the lock contended");
		List<Row> rows = new ArrayList<>();
		try (RedisServer server = RedisServer.start();
				RedisClient adminClient = RedisClient.create(server.uri());
				StatefulRedisConnection<String, String> admin = adminClient.connect();
				Contenders contenders = Contenders.connect(Contenders.ALL, server.host(), server.port(),
						config.leaseTime())) {
			CommandStats stats = new CommandStats(admin.sync());
			List<Contender> uncontended = contenders.get(concat(RAW, LOCKS));
			List<Contender> contended = contenders.get(concat(SPINNER, LOCKS));
			List<Row> single = new ThroughputScenario(Goals.UNCONTENDED, "single", 1, false).run(uncontended, config,
					(contender) -> Goals.of(Goals.UNCONTENDED, contender));
			rows.addAll(progress(withAnnotationOverhead(single)));
			rows.addAll(progress(new ThroughputScenario(Goals.DISTINCT, "distinct", 16, false).run(uncontended, config,
					(contender) -> Goals.of(Goals.DISTINCT, contender))));
			rows.addAll(progress(new ThroughputScenario(Goals.ONE_KEY, "onekey", 8, true).run(contended, config,
					(contender) -> Goals.of(Goals.ONE_KEY, contender))));
			rows.addAll(progress(ReentryScenario.run(uncontended, config, stats)));
			List<String> twoJvm = config.mode().equals("smoke") ? List.of(SPINNER, DISTLOCK_LOCK)
					: List.of(SPINNER, DISTLOCK_LOCK, REDISSON_WATCHDOG, SI_SPIN, SI_PUBSUB);
			rows.addAll(progress(TwoJvmScenario.run(twoJvm, contenders, server.host(), server.port(), config,
					(contender) -> Goals.of(TwoJvmScenario.TITLE, contender))));
			rows.addAll(HeldLocksScenario.run(contenders.get(List.of(DISTLOCK_LEASE, REDISSON_WATCHDOG, SI_SPIN)),
					config, admin.sync(), stats, (contender) -> Goals.of("held", contender)));
		}
		return new Result(header, rows);
	}

	private static List<Row> progress(List<Row> rows) {
		System.err.println(Report.format(List.of(), rows));
		return rows;
	}

	private static List<Row> withAnnotationOverhead(List<Row> rows) {
		Row lock = rows.stream()
			.filter((row) -> row.contender().equals("distlock obtain().lock()"))
			.findFirst()
			.orElseThrow();
		List<Row> result = new ArrayList<>();
		for (Row row : rows) {
			if (row.contender().equals("distlock @DistributedLock")) {
				row = new Row(row.contender(), row.scenario(), row.opsPerSecond(), row.ratio(), row.p50Nanos(),
						row.p99Nanos(), row.operations(), row.excluded(), row.goal(),
						String.format(Locale.ROOT, "%.3fx of obtain().lock() ops/s (ratio of medians)",
								row.opsPerSecond() / lock.opsPerSecond()));
			}
			result.add(row);
		}
		return result;
	}

	private static List<String> concat(String first, List<String> rest) {
		List<String> all = new ArrayList<>();
		all.add(first);
		all.addAll(rest);
		return all;
	}

	/**
	 * The header lines and rows of a run.
	 *
	 * @param header lines about the run and the machine
	 * @param rows the measurements
	 */
	public record Result(List<String> header, List<Row> rows) {

		/**
		 * Format the report.
		 * @return the Markdown table with its header
		 */
		public String format() {
			return Report.format(this.header, this.rows);
		}

	}

}
