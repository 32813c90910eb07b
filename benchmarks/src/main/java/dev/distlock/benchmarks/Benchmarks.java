package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisServerBinary;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import static dev.distlock.benchmarks.Contenders.DISTLOCK_ANNOTATED;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_LEASE;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_PERMIT;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_READ;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_REDLOCK;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_LOCK;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_SPRING_DATA_JEDIS;
import static dev.distlock.benchmarks.Contenders.FENCED_FLOOR;
import static dev.distlock.benchmarks.Contenders.RAW;
import static dev.distlock.benchmarks.Contenders.RAW_JEDIS;
import static dev.distlock.benchmarks.Contenders.REDISSON_FIXED;
import static dev.distlock.benchmarks.Contenders.REDISSON_WATCHDOG;
import static dev.distlock.benchmarks.Contenders.SI_PUBSUB;
import static dev.distlock.benchmarks.Contenders.SI_SPIN;
import static dev.distlock.benchmarks.Contenders.SI_SPIN_JEDIS;
import static dev.distlock.benchmarks.Contenders.SPINNER;

/**
 * Runs every scenario against one real redis-server: all contenders in this one JVM,
 * except in the cross-process scenarios, which run them on JVMs spawned for them. The
 * {@code quorum} mode runs only the Redlock quorum's scenarios, with the raw floor and
 * the single-node lock beside it; the {@code cross} mode only the cross-process
 * scenarios, with the spinner and distlock's lock; the {@code held} mode only the
 * held-locks scenario.
 *
 * @since 0.1.0
 */
public final class Benchmarks {

	private static final List<String> LOCKS = List.of(DISTLOCK_LOCK, DISTLOCK_LEASE, DISTLOCK_ANNOTATED,
			DISTLOCK_SPRING_DATA_JEDIS, REDISSON_FIXED, REDISSON_WATCHDOG, SI_SPIN, SI_PUBSUB, SI_SPIN_JEDIS);

	/**
	 * The shared primitives, measured uncontended only: a read share or a permit is not
	 * contended by others of its kind.
	 */
	private static final List<String> SHARED = List.of(DISTLOCK_READ, DISTLOCK_PERMIT);

	/**
	 * The locks on a Redlock quorum, measured in the uncontended and distinct-key
	 * scenarios only, against the single-node floor.
	 */
	private static final List<String> QUORUM = List.of(DISTLOCK_REDLOCK);

	private Benchmarks() {
	}

	/**
	 * Run every scenario, or in the {@code quorum}, {@code cross} and {@code held} modes
	 * only theirs.
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
				+ "wait for the lock contended; notes: ratios to other contenders, taken the same way");
		List<Row> rows = new ArrayList<>();
		List<CrossProcessTable> tables = new ArrayList<>();
		try (RedisServer server = RedisServer.start();
				RedisClient adminClient = RedisClient.create(server.uri());
				StatefulRedisConnection<String, String> admin = adminClient.connect();
				Contenders contenders = Contenders.connect(Contenders.ALL, server.host(), server.port(),
						config.leaseTime())) {
			WatchedRedis watched = new WatchedRedis(server.host(), server.port(), admin.sync());
			if (config.mode().equals(BenchmarkConfig.CROSS.mode())) {
				rows.addAll(oneKey(contenders.get(List.of(SPINNER, DISTLOCK_LOCK)), config, contenders, admin.sync()));
				return new Result(header, rows, runCrossProcess(config, contenders, watched));
			}
			CommandStats stats = new CommandStats(admin.sync());
			List<Contender> renewing = contenders
				.get(List.of(DISTLOCK_LEASE, DISTLOCK_SPRING_DATA_JEDIS, REDISSON_WATCHDOG, SI_SPIN));
			if (config.mode().equals(BenchmarkConfig.HELD.mode())) {
				rows.addAll(
						HeldLocksScenario.run(renewing, config, admin.sync(), stats, goals(Goals.HELD, contenders)));
				return new Result(header, rows, tables);
			}
			List<Contender> uncontended = contenders.get(concat(List.of(RAW, RAW_JEDIS), LOCKS));
			boolean quorumOnly = config.mode().equals(BenchmarkConfig.QUORUM.mode());
			List<Contender> uncontendedShared = contenders.get(quorumOnly ? concat(List.of(RAW, DISTLOCK_LOCK), QUORUM)
					: concat(concat(concat(List.of(RAW, RAW_JEDIS, FENCED_FLOOR), LOCKS), SHARED), QUORUM));
			List<Contender> contended = contenders.get(concat(List.of(SPINNER), LOCKS));
			for (ThroughputScenario scenario : List.of(new ThroughputScenario(Goals.UNCONTENDED, "single", 1, false),
					new ThroughputScenario(Goals.DISTINCT, "distinct", 16, false))) {
				ThroughputScenario.Measured measured = scenario.run(uncontendedShared, config,
						goals(scenario.title(), contenders), admin.sync());
				rows.addAll(progress(RatioGoals.check(scenario.title(), measured, contenders)));
			}
			if (quorumOnly) {
				return new Result(header, rows, tables);
			}
			rows.addAll(oneKey(contended, config, contenders, admin.sync()));
			rows.addAll(progress(ReentryScenario.run(uncontended, config, stats)));
			tables.addAll(runCrossProcess(config, contenders, watched));
			rows.addAll(HeldLocksScenario.run(renewing, config, admin.sync(), stats, goals(Goals.HELD, contenders)));
		}
		return new Result(header, rows, tables);
	}

	/**
	 * Run the one-key scenario: 8 threads of this JVM on one key.
	 */
	private static List<Row> oneKey(List<Contender> contended, BenchmarkConfig config, Contenders contenders,
			RedisCommands<String, String> admin) {
		ThroughputScenario.Measured measured = new ThroughputScenario(Goals.ONE_KEY, "onekey", 8, true).run(contended,
				config, goals(Goals.ONE_KEY, contenders), admin);
		return progress(Goals.check(Goals.ONE_KEY, measured, contenders));
	}

	/**
	 * Run the cross-process scenarios on JVMs spawned for them: in smoke mode only the
	 * smallest, with the spinner and distlock alone; in cross mode all of them with those
	 * two, after the one-key scenario of this JVM's threads with the same two.
	 */
	private static List<CrossProcessTable> runCrossProcess(BenchmarkConfig config, Contenders contenders,
			WatchedRedis redis) {
		boolean smoke = config.mode().equals("smoke");
		boolean twoOnly = smoke || config.mode().equals(BenchmarkConfig.CROSS.mode());
		List<String> ids = twoOnly ? List.of(SPINNER, DISTLOCK_LOCK)
				: List.of(SPINNER, DISTLOCK_LOCK, REDISSON_WATCHDOG, SI_SPIN, SI_PUBSUB);
		List<CrossProcessScenario> scenarios = smoke ? List.of(CrossProcessScenario.TWO_JVMS_FOUR_THREADS)
				: List.of(CrossProcessScenario.TWO_JVMS_FOUR_THREADS, CrossProcessScenario.FOUR_JVMS_ONE_THREAD,
						CrossProcessScenario.EIGHT_JVMS_ONE_THREAD);
		int jvms = scenarios.stream().mapToInt(CrossProcessScenario::jvms).max().orElse(0);
		List<CrossProcessTable> tables = new ArrayList<>();
		try (ContenderJvms processes = ContenderJvms.start(jvms, ids, redis.host(), redis.port(), config.leaseTime())) {
			for (CrossProcessScenario scenario : scenarios) {
				CrossProcessTable table = scenario.run(ids, contenders, processes, config, redis,
						goals(scenario.title(), contenders));
				System.err.println(Report.format(table));
				tables.add(table);
			}
		}
		return tables;
	}

	private static Function<Contender, String> goals(String scenario, Contenders contenders) {
		return (contender) -> Goals.of(scenario, contenders.idOf(contender));
	}

	private static List<Row> progress(List<Row> rows) {
		System.err.println(Report.format(List.of(), rows));
		return rows;
	}

	private static List<String> concat(List<String> first, List<String> rest) {
		List<String> all = new ArrayList<>(first);
		all.addAll(rest);
		return all;
	}

	/**
	 * The header lines and rows of a run.
	 *
	 * @param header lines about the run and the machine
	 * @param rows the measurements of the scenarios in one JVM
	 * @param crossProcess the tables of the cross-process scenarios
	 */
	public record Result(List<String> header, List<Row> rows, List<CrossProcessTable> crossProcess) {

		/**
		 * Format the report.
		 * @return the Markdown table with its header, then a table per cross-process
		 * scenario
		 */
		public String format() {
			StringBuilder text = new StringBuilder(Report.format(this.header, this.rows));
			this.crossProcess.forEach((table) -> text.append('\n').append(Report.format(table)));
			return text.toString();
		}

	}

}
