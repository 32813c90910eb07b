package dev.distlock.benchmarks;

import java.util.Map;

/**
 * The measurable goals for distlock (docs/design.md#measurable-goals) and the rivals'
 * figures, per scenario.
 *
 * @since 0.1.0
 */
final class Goals {

	static final String UNCONTENDED = "uncontended, 1 thread";

	static final String DISTINCT = "16 threads, distinct keys";

	static final String ONE_KEY = "8 threads, one key";

	private static final Map<String, String[]> BY_SCENARIO = Map.of(UNCONTENDED,
			new String[] { "baseline", ">= 0.95x", "< 5% below obtain().lock()", "rivals: 0.81x",
					"rivals: 0.79-0.84x" },
			DISTINCT, new String[] { "baseline", ">= 0.9x", "", "rivals: 0.31x", "rivals: 0.61-0.68x" }, ONE_KEY,
			new String[] { "baseline", ">= 1.5x, p99 < 5 ms, least-served >= 0.5", "",
					"rivals: 0.72-0.78x, p99 16-21 ms", "rivals: 0.72-0.78x, p99 16-21 ms" },
			TwoJvmScenario.TITLE,
			new String[] { "baseline", ">= 1.2x, p99 < 20 ms, each JVM >= 40%", "", "rivals: 0.73x, p99 42-61 ms",
					"rivals: 0.92-1.04x, p99 42-61 ms" },
			"held", new String[] { "", "<= 20 commands/period, < 3% of a core, all alive", "",
					"rivals: 100 commands, 6.5%", "rivals: 8,283 commands, 57%" });

	private Goals() {
	}

	/**
	 * Return the goal of a contender in a scenario.
	 * @param scenario the scenario's key
	 * @param contender the contender
	 * @return the goal text, empty if none
	 */
	static String of(String scenario, Contender contender) {
		String[] goals = BY_SCENARIO.get(scenario);
		String name = contender.name();
		if (name.startsWith("raw") || name.startsWith("naive")) {
			return goals[0];
		}
		if (name.equals("distlock @DistributedLock")) {
			return goals[2].isEmpty() ? goals[1] : goals[2];
		}
		if (name.startsWith("distlock")) {
			return goals[1];
		}
		return name.startsWith("Redisson") ? goals[3] : goals[4];
	}

}
