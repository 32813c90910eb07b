package dev.distlock.benchmarks;

import java.time.Duration;

/**
 * How long and how hard a benchmark run is.
 *
 * @param mode {@code smoke}, {@code full}, {@code quorum}, {@code cross} or {@code held}
 * @param warmupRounds rounds per contender and scenario run before measuring
 * @param rounds measured rounds per contender and scenario
 * @param roundTime how long one contender runs in one round
 * @param opsCap operations per contender and round at most (0: only {@code roundTime}
 * bounds it)
 * @param leaseTime the lease of watchdog-mode locks (renewed every third of it)
 * @param heldLocks how many locks the held-locks scenario holds
 * @param renewalPeriods how many renewal periods the held-locks scenario measures
 * @since 0.1.0
 */
public record BenchmarkConfig(String mode, int warmupRounds, int rounds, Duration roundTime, int opsCap,
		Duration leaseTime, int heldLocks, int renewalPeriods) {

	/**
	 * A few hundred operations per contender and scenario: proves that everything runs.
	 */
	public static final BenchmarkConfig SMOKE = new BenchmarkConfig("smoke", 1, 2, Duration.ofMillis(400), 120,
			Duration.ofMillis(1500), 200, 3);

	/**
	 * The measured run, about ten minutes on two cores.
	 */
	public static final BenchmarkConfig FULL = new BenchmarkConfig("full", 1, 5, Duration.ofSeconds(2), 0,
			Duration.ofSeconds(3), 10_000, 3);

	/**
	 * The full run's rounds for the locks on a Redlock quorum alone, beside the raw floor
	 * and the single-node lock, uncontended and on distinct keys: about two minutes.
	 */
	public static final BenchmarkConfig QUORUM = new BenchmarkConfig("quorum", FULL.warmupRounds, FULL.rounds,
			FULL.roundTime, FULL.opsCap, FULL.leaseTime, FULL.heldLocks, FULL.renewalPeriods);

	/**
	 * The full run's rounds for the one-key scenarios alone (8 threads of one JVM, then
	 * the cross-process ones), with the naive spinner and distlock's lock: about three
	 * minutes, to compare two versions of the engine turn by turn on one machine.
	 */
	public static final BenchmarkConfig CROSS = new BenchmarkConfig("cross", FULL.warmupRounds, FULL.rounds,
			FULL.roundTime, FULL.opsCap, FULL.leaseTime, FULL.heldLocks, FULL.renewalPeriods);

	/**
	 * The full run's held-locks scenario alone: about half a minute, to compare the CPU
	 * that keeping held locks costs two versions of the engine.
	 */
	public static final BenchmarkConfig HELD = new BenchmarkConfig("held", FULL.warmupRounds, FULL.rounds,
			FULL.roundTime, FULL.opsCap, FULL.leaseTime, FULL.heldLocks, FULL.renewalPeriods);

	/**
	 * Return the configuration of the named mode.
	 * @param mode {@code smoke}, {@code full}, {@code quorum}, {@code cross} or
	 * {@code held}
	 * @return its configuration
	 */
	public static BenchmarkConfig of(String mode) {
		return switch (mode) {
			case "smoke" -> SMOKE;
			case "full" -> FULL;
			case "quorum" -> QUORUM;
			case "cross" -> CROSS;
			case "held" -> HELD;
			default -> throw new IllegalArgumentException(
					"Unknown mode '" + mode + "': use smoke, full, quorum, cross or held");
		};
	}

	/**
	 * Return the renewal period of watchdog-mode locks.
	 * @return a third of the lease
	 */
	public Duration renewalPeriod() {
		return this.leaseTime.dividedBy(3);
	}

}
