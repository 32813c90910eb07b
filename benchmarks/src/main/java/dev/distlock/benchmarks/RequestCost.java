package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisServerBinary;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import static dev.distlock.benchmarks.Contenders.DISTLOCK_LEASE;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_LOCK;
import static dev.distlock.benchmarks.Contenders.FENCED_FLOOR;
import static dev.distlock.benchmarks.Contenders.RAW;

/**
 * Redis' own time per lock cycle, command by command, from {@code INFO commandstats}: the
 * raw floor, the fenced floor (the least a lock that issues a fencing token on every hold
 * asks of Redis: one script that increments a counter and runs {@code SET NX PX}) and
 * distlock run a fixed number of uncontended cycles on one thread, then on 16 threads
 * each with its own lock, against one Redis, with the statistics reset before each
 * contender's turn. A cycle's request time is the time of the requests the contender
 * sends (a script's time includes the commands it runs); the other commands are those the
 * scripts ran. Unlike the CPU of {@link CycleCost}, it leaves out reading and answering
 * requests, so it shows what the scripts cost and is little disturbed by other work on
 * the machine.
 *
 * @since 0.1.0
 */
final class RequestCost {

	/** The benchmark mode that runs this measurement alone. */
	static final String MODE = "requests";

	private static final int ROUNDS = 3;

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final long ROUND_LIMIT_NANOS = Duration.ofMinutes(2).toNanos();

	/**
	 * The contenders measured, each with the commands it sends itself.
	 */
	private static final Map<String, List<String>> REQUESTS = Map.of(RAW, List.of("set", "evalsha"), FENCED_FLOOR,
			List.of("evalsha"), DISTLOCK_LOCK, List.of("evalsha"), DISTLOCK_LEASE, List.of("evalsha"));

	private static final List<String> MEASURED = List.of(RAW, FENCED_FLOOR, DISTLOCK_LOCK, DISTLOCK_LEASE);

	private RequestCost() {
	}

	/**
	 * Measure every contender, uncontended on one thread and on 16 threads with distinct
	 * keys.
	 * @param cycles cycles per contender, scenario and round ({@value #ROUNDS} measured
	 * rounds after one warm-up round)
	 * @return a Markdown report: per contender and scenario, each command's calls per
	 * cycle and time per call, and the request time per cycle with its ratio to the raw
	 * floor's
	 */
	static String run(int cycles) {
		StringBuilder report = new StringBuilder();
		report.append("redis-server ")
			.append(RedisServerBinary.get().version())
			.append("; ")
			.append(cycles)
			.append(" cycles per contender and round, ")
			.append(ROUNDS)
			.append(" rounds after a warm-up\n\n")
			.append("| contender | threads | command | calls/cycle | µs/call | µs/cycle |\n")
			.append("|---|--:|---|--:|--:|--:|\n");
		try (RedisServer server = RedisServer.start();
				RedisClient adminClient = RedisClient.create(server.uri());
				StatefulRedisConnection<String, String> admin = adminClient.connect();
				Contenders contenders = Contenders.connect(MEASURED, server.host(), server.port(), LEASE)) {
			CommandStats stats = new CommandStats(admin.sync());
			for (int threads : new int[] { 1, 16 }) {
				Map<String, Tally> tallies = measure(contenders, stats, threads, cycles);
				double floor = tallies.get(RAW).requestMicros(REQUESTS.get(RAW));
				for (String id : MEASURED) {
					tallies.get(id).describe(report, contenders.get(id).name(), threads, REQUESTS.get(id), floor);
				}
			}
		}
		return report.toString();
	}

	private static Map<String, Tally> measure(Contenders contenders, CommandStats stats, int threads, int cycles) {
		Map<String, Tally> tallies = new TreeMap<>();
		MEASURED.forEach((id) -> tallies.put(id, new Tally()));
		for (int round = 0; round <= ROUNDS; round++) {
			for (int i = 0; i < MEASURED.size(); i++) {
				String id = MEASURED.get((i + round) % MEASURED.size());
				String prefix = "requests." + threads + "." + id + ".";
				stats.reset();
				RoundResult result = RoundRunner.run(contenders.get(id), threads, (thread) -> prefix + thread, false,
						ROUND_LIMIT_NANOS, cycles);
				if (round > 0) {
					tallies.get(id).add(stats.calls(), stats.micros(), result.operations());
				}
			}
		}
		return tallies;
	}

	/**
	 * The calls and time of every command over one contender's measured rounds.
	 */
	private static final class Tally {

		private final Map<String, Long> calls = new TreeMap<>();

		private final Map<String, Long> micros = new TreeMap<>();

		private long cycles;

		void add(Map<String, Long> roundCalls, Map<String, Long> roundMicros, long roundCycles) {
			roundCalls.forEach((command, count) -> this.calls.merge(command, count, Long::sum));
			roundMicros.forEach((command, time) -> this.micros.merge(command, time, Long::sum));
			this.cycles += roundCycles;
		}

		double perCycle(Map<String, Long> counts, String command) {
			return (double) counts.getOrDefault(command, 0L) / Math.max(1, this.cycles);
		}

		double requestMicros(List<String> requests) {
			return requests.stream().mapToDouble((command) -> perCycle(this.micros, command)).sum();
		}

		void describe(StringBuilder report, String name, int threads, List<String> requests, double floor) {
			List<String> commands = new ArrayList<>(requests);
			this.calls.keySet().stream().filter((command) -> !requests.contains(command)).forEach(commands::add);
			for (String command : commands) {
				long count = this.calls.getOrDefault(command, 0L);
				double perCall = (count > 0) ? (double) this.micros.get(command) / count : 0;
				String label = requests.contains(command) ? "`" + command.toUpperCase(Locale.ROOT) + "` (request)"
						: "`" + command.toUpperCase(Locale.ROOT) + "` in scripts";
				report.append(String.format(Locale.ROOT, "| %s | %d | %s | %.2f | %.2f | %.2f |%n", name, threads,
						label, perCycle(this.calls, command), perCall, perCycle(this.micros, command)));
			}
			double total = requestMicros(requests);
			report.append(String.format(Locale.ROOT, "| %s | %d | **requests** | | | **%.2f (%.2fx the floor's)** |%n",
					name, threads, total, total / floor));
		}

	}

}
