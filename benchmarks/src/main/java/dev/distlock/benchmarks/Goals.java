package dev.distlock.benchmarks;

import java.util.Map;

import static dev.distlock.benchmarks.Contenders.DISTLOCK_ANNOTATED;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_LEASE;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_LOCK;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_SPRING_DATA_JEDIS;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_SPRING_DATA_LETTUCE;
import static dev.distlock.benchmarks.Contenders.RAW;
import static dev.distlock.benchmarks.Contenders.REDISSON_FIXED;
import static dev.distlock.benchmarks.Contenders.REDISSON_WATCHDOG;
import static dev.distlock.benchmarks.Contenders.SI_PUBSUB;
import static dev.distlock.benchmarks.Contenders.SI_SPIN;
import static dev.distlock.benchmarks.Contenders.SPINNER;

/**
 * The measurable goals for distlock (docs/design.md#measurable-goals) and the rivals'
 * figures, per scenario, as printed in the goal column; {@link RatioGoals} checks the
 * ratios among them.
 *
 * @since 0.1.0
 */
final class Goals {

	static final String UNCONTENDED = "uncontended, 1 thread";

	static final String DISTINCT = "16 threads, distinct keys";

	static final String ONE_KEY = "8 threads, one key";

	static final String HELD = "held";

	private static final String SPRING_DATA = ">= 0.85x, ahead of Spring Integration on the same driver";

	private static final String HELD_LOCKS = "<= 20 commands/period, < 3% of a core, all alive";

	private static final Map<String, ScenarioGoals> BY_SCENARIO = Map.of(UNCONTENDED,
			new ScenarioGoals("baseline", ">= 0.95x", "< 5% below obtain().lock()", SPRING_DATA, "rivals: 0.81x",
					"rivals: 0.79-0.84x"),
			DISTINCT, new ScenarioGoals("baseline", ">= 0.9x", "", SPRING_DATA, "rivals: 0.31x", "rivals: 0.61-0.68x"),
			ONE_KEY,
			new ScenarioGoals("baseline", ">= 1.5x, p99 < 5 ms, least-served >= 0.5", "", "",
					"rivals: 0.72-0.78x, p99 16-21 ms", "rivals: 0.72-0.78x, p99 16-21 ms"),
			TwoJvmScenario.TITLE,
			new ScenarioGoals("baseline", ">= 1.2x, p99 < 20 ms, each JVM >= 40%", "", "",
					"rivals: 0.73x, p99 42-61 ms", "rivals: 0.92-1.04x, p99 42-61 ms"),
			HELD, new ScenarioGoals("", HELD_LOCKS, "", HELD_LOCKS, "rivals: 100 commands, 6.5%",
					"rivals: 8,283 commands, 57%"));

	private Goals() {
	}

	/**
	 * Return the goal of a contender in a scenario.
	 * @param scenario the scenario's key
	 * @param id the contender's id
	 * @return the goal text, empty if none
	 */
	static String of(String scenario, String id) {
		ScenarioGoals goals = BY_SCENARIO.get(scenario);
		return switch (id) {
			case RAW, SPINNER -> goals.baseline();
			case DISTLOCK_LOCK, DISTLOCK_LEASE -> goals.distlock();
			case DISTLOCK_ANNOTATED -> goals.annotated().isEmpty() ? goals.distlock() : goals.annotated();
			case DISTLOCK_SPRING_DATA_LETTUCE, DISTLOCK_SPRING_DATA_JEDIS -> goals.springData();
			case REDISSON_FIXED, REDISSON_WATCHDOG -> goals.redisson();
			case SI_SPIN, SI_PUBSUB -> goals.springIntegration();
			default -> "";
		};
	}

	/**
	 * The goal texts of one scenario.
	 *
	 * @param baseline the baseline's
	 * @param distlock distlock's on Lettuce's own client
	 * @param annotated {@code @DistributedLock}'s, empty if distlock's
	 * @param springData distlock's through Spring Data Redis
	 * @param redisson Redisson's figures in earlier runs
	 * @param springIntegration Spring Integration's figures in earlier runs (on Lettuce)
	 */
	private record ScenarioGoals(String baseline, String distlock, String annotated, String springData, String redisson,
			String springIntegration) {

	}

}
