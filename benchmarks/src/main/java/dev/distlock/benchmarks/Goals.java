package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.distlock.benchmarks.Contenders.DISTLOCK_ANNOTATED;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_LEASE;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_LOCK;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_SPRING_DATA_JEDIS;
import static dev.distlock.benchmarks.Contenders.RAW;
import static dev.distlock.benchmarks.Contenders.REDISSON_FIXED;
import static dev.distlock.benchmarks.Contenders.REDISSON_WATCHDOG;
import static dev.distlock.benchmarks.Contenders.SI_PUBSUB;
import static dev.distlock.benchmarks.Contenders.SI_SPIN;
import static dev.distlock.benchmarks.Contenders.SPINNER;

/**
 * The measurable goals for distlock (docs/design.md#measurable-goals) and the rivals'
 * figures, per scenario, as printed in the goal column. distlock's goals in the contended
 * scenarios (ratio to the naive spinner, p99 wait, least share) are checked here, the
 * ratios among contenders in the uncontended scenarios by {@link RatioGoals}.
 *
 * @since 0.1.0
 */
final class Goals {

	static final String UNCONTENDED = "uncontended, 1 thread";

	static final String DISTINCT = "16 threads, distinct keys";

	static final String ONE_KEY = "8 threads, one key";

	static final String HELD = "held";

	private static final String SPRING_DATA = ">= 0.95x of the Jedis floor, >= 0.85x of the raw floor, ahead of Spring Integration on the same driver";

	private static final String HELD_LOCKS = "<= 20 commands/period, < 3% of a core, all alive";

	private static final String TWO_JVMS = CrossProcessScenario.TWO_JVMS_FOUR_THREADS.title();

	private static final String FOUR_JVMS = CrossProcessScenario.FOUR_JVMS_ONE_THREAD.title();

	private static final String EIGHT_JVMS = CrossProcessScenario.EIGHT_JVMS_ONE_THREAD.title();

	/**
	 * distlock's goals in the contended scenarios, checked against every run.
	 */
	private static final Map<String, ContendedGoal> CONTENDED = Map.of(ONE_KEY,
			new ContendedGoal(2.0, 3, 0.5, "least-served thread >= %s of the mean share"), TWO_JVMS,
			new ContendedGoal(1.2, 10, 0.45, "each JVM >= %s in every round"), FOUR_JVMS,
			new ContendedGoal(1.0, 0, 0.22, "each JVM >= %s in every round"));

	private static final Map<String, ScenarioGoals> BY_SCENARIO = Map.of(UNCONTENDED,
			new ScenarioGoals("baseline", ">= 1.0x", "< 5% below obtain().lock()", SPRING_DATA, "rivals: 0.81x",
					"rivals: 0.79-0.84x"),
			DISTINCT, new ScenarioGoals("baseline", ">= 0.95x", "", SPRING_DATA, "rivals: 0.31x", "rivals: 0.61-0.68x"),
			ONE_KEY,
			new ScenarioGoals("baseline", CONTENDED.get(ONE_KEY).text(), "", "", "rivals: 0.72-0.78x, p99 16-21 ms",
					"rivals: 0.72-0.78x, p99 16-21 ms"),
			TWO_JVMS,
			new ScenarioGoals("baseline", CONTENDED.get(TWO_JVMS).text(), "", "", "rivals: 0.73x, p99 42-61 ms",
					"rivals: 0.92-1.04x, p99 42-61 ms"),
			FOUR_JVMS, new ScenarioGoals("baseline", CONTENDED.get(FOUR_JVMS).text(), "", "", "", ""), EIGHT_JVMS,
			new ScenarioGoals("baseline", "none (measured only)", "", "", "", ""), HELD, new ScenarioGoals("",
					HELD_LOCKS, "", HELD_LOCKS, "rivals: 100 commands, 6.5%", "rivals: 8,283 commands, 57%"));

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
			case DISTLOCK_SPRING_DATA_JEDIS -> goals.springData();
			case REDISSON_FIXED, REDISSON_WATCHDOG -> goals.redisson();
			case SI_SPIN, SI_PUBSUB -> goals.springIntegration();
			default -> "";
		};
	}

	/**
	 * Check distlock's goal in a contended scenario against what a contender measured.
	 * @param scenario the scenario's key
	 * @param id the contender's id
	 * @param ratio its median ratio to the naive spinner
	 * @param p99Nanos its 99th percentile wait
	 * @param leastShare the least share of the acquisitions, as the scenario's goal means
	 * it
	 * @return each figure against its goal, met or missed; empty if the contender has no
	 * checked goal in the scenario
	 */
	static String verdicts(String scenario, String id, double ratio, long p99Nanos, double leastShare) {
		ContendedGoal goal = CONTENDED.get(scenario);
		boolean distlock = switch (id) {
			case DISTLOCK_LOCK, DISTLOCK_LEASE -> true;
			case DISTLOCK_ANNOTATED -> BY_SCENARIO.get(scenario).annotated().isEmpty();
			default -> false;
		};
		return (goal != null && distlock) ? goal.verdicts(ratio, p99Nanos, leastShare) : "";
	}

	/**
	 * Note the verdicts of distlock's goal on the rows of a contended scenario in one
	 * JVM.
	 * @param scenario the scenario's key
	 * @param measured what the scenario measured
	 * @param contenders the contenders by id
	 * @return the rows, the verdicts added to the notes of distlock's rows
	 */
	static List<Row> check(String scenario, ThroughputScenario.Measured measured, Contenders contenders) {
		List<Row> rows = new ArrayList<>();
		measured.leastShares().forEach((contender, leastShare) -> {
			Row row = measured.rows().get(rows.size());
			rows.add(row
				.withNote(verdicts(scenario, contenders.idOf(contender), row.ratio(), row.p99Nanos(), leastShare)));
		});
		return rows;
	}

	/**
	 * A goal of distlock's in a contended scenario: throughput against the naive spinner
	 * of the same round, the p99 wait and the least share of the acquisitions.
	 *
	 * @param atLeast the least ratio to the spinner
	 * @param p99BelowMillis the p99 wait must be under this, 0 if free
	 * @param leastShare the least share (0 to 1) that meets the goal
	 * @param share what the share is of, {@code %s} standing for the goal's percentage
	 */
	private record ContendedGoal(double atLeast, long p99BelowMillis, double leastShare, String share) {

		String text() {
			List<String> parts = new ArrayList<>();
			parts.add(String.format(Locale.ROOT, ">= %.1fx", this.atLeast));
			if (this.p99BelowMillis > 0) {
				parts.add("p99 < " + this.p99BelowMillis + " ms");
			}
			parts.add(this.share.formatted(percent(this.leastShare)));
			return String.join(", ", parts);
		}

		String verdicts(double ratio, long p99Nanos, double measuredShare) {
			List<String> verdicts = new ArrayList<>();
			verdicts.add(verdict(String.format(Locale.ROOT, "%.2fx of the spinner, goal >= %.1fx", ratio, this.atLeast),
					ratio >= this.atLeast));
			if (this.p99BelowMillis > 0) {
				verdicts.add(verdict(
						String.format(Locale.ROOT, "p99 %.2f ms, goal < %d ms", p99Nanos / 1e6, this.p99BelowMillis),
						p99Nanos < this.p99BelowMillis * 1_000_000));
			}
			verdicts.add(verdict("least share " + percent(measuredShare) + ", goal >= " + percent(this.leastShare),
					measuredShare >= this.leastShare));
			return String.join("; ", verdicts);
		}

		private static String verdict(String figure, boolean met) {
			return figure + ": " + (met ? "met" : "**missed**");
		}

		private static String percent(double share) {
			return String.format(Locale.ROOT, "%.0f%%", share * 100);
		}

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
