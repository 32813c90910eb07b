package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.distlock.benchmarks.Contenders.DISTLOCK_ANNOTATED;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_LEASE;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_PERMIT;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_READ;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_REDLOCK;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_LOCK;
import static dev.distlock.benchmarks.Contenders.DISTLOCK_SPRING_DATA_JEDIS;
import static dev.distlock.benchmarks.Contenders.RAW;
import static dev.distlock.benchmarks.Contenders.RAW_JEDIS;
import static dev.distlock.benchmarks.Contenders.SI_SPIN_JEDIS;

/**
 * The goals on throughput ratios between contenders in the uncontended and distinct-key
 * scenarios (docs/design.md#measurable-goals), checked against a run: each ratio is the
 * median over the rounds of the contender's throughput divided by the other's in the same
 * round. The ratios, and whether each goal was met, go into the contenders' notes.
 *
 * @since 0.1.0
 */
final class RatioGoals {

	/**
	 * Through Spring Data Redis on Jedis: at least 0.95x of Jedis' own floor, 0.85x of
	 * the raw floor and ahead of Spring Integration on Jedis, which is compared with
	 * Jedis' floor too.
	 */
	private static final List<RatioGoal> SPRING_DATA = List.of(
			new RatioGoal(DISTLOCK_SPRING_DATA_JEDIS, RAW_JEDIS, 0.95),
			new RatioGoal(DISTLOCK_SPRING_DATA_JEDIS, RAW, 0.85),
			new RatioGoal(DISTLOCK_SPRING_DATA_JEDIS, SI_SPIN_JEDIS, 1),
			new RatioGoal(SI_SPIN_JEDIS, RAW_JEDIS, RatioGoal.NONE));

	private static final Map<String, List<RatioGoal>> BY_SCENARIO = Map.of(Goals.UNCONTENDED,
			with(SPRING_DATA, new RatioGoal(DISTLOCK_LOCK, RAW, 1.0), new RatioGoal(DISTLOCK_LEASE, RAW, 1.0),
					new RatioGoal(DISTLOCK_ANNOTATED, DISTLOCK_LOCK, 0.95),
					new RatioGoal(DISTLOCK_READ, RAW, RatioGoal.NONE), new RatioGoal(DISTLOCK_READ, DISTLOCK_LOCK, 0.9),
					new RatioGoal(DISTLOCK_PERMIT, RAW, RatioGoal.NONE),
					new RatioGoal(DISTLOCK_PERMIT, DISTLOCK_LEASE, 0.9), new RatioGoal(DISTLOCK_REDLOCK, RAW, 0.8)),
			Goals.DISTINCT,
			with(SPRING_DATA, new RatioGoal(DISTLOCK_LOCK, RAW, 0.95), new RatioGoal(DISTLOCK_LEASE, RAW, 0.95),
					new RatioGoal(DISTLOCK_ANNOTATED, RAW, 0.95), new RatioGoal(DISTLOCK_READ, RAW, RatioGoal.NONE),
					new RatioGoal(DISTLOCK_PERMIT, RAW, RatioGoal.NONE), new RatioGoal(DISTLOCK_REDLOCK, RAW, 0.6)));

	private RatioGoals() {
	}

	/**
	 * Check a scenario's ratio goals and note them on its rows.
	 * @param scenario the scenario's key ({@link Goals#UNCONTENDED} or
	 * {@link Goals#DISTINCT})
	 * @param measured what the scenario measured
	 * @param contenders the contenders by id
	 * @return the rows, each contender's ratios and verdicts added to its note
	 */
	static List<Row> check(String scenario, ThroughputScenario.Measured measured, Contenders contenders) {
		List<RatioGoal> goals = BY_SCENARIO.get(scenario);
		List<Row> rows = new ArrayList<>();
		for (Row row : measured.rows()) {
			List<String> notes = new ArrayList<>();
			for (RatioGoal goal : goals) {
				Contender contender = contenders.get(goal.contender());
				if (contender.name().equals(row.contender())) {
					Contender reference = contenders.get(goal.reference());
					notes.add(goal.describe(measured.ratio(contender, reference), reference.name()));
				}
			}
			rows.add(row.withNote(String.join("; ", notes)));
		}
		return rows;
	}

	private static List<RatioGoal> with(List<RatioGoal> shared, RatioGoal... own) {
		List<RatioGoal> all = new ArrayList<>(List.of(own));
		all.addAll(shared);
		return List.copyOf(all);
	}

	/**
	 * One contender's throughput against another's.
	 *
	 * @param contender the contender's id
	 * @param reference the id of the contender it is compared with
	 * @param atLeast the least ratio that meets the goal, {@link #NONE} if the ratio is
	 * only printed
	 */
	record RatioGoal(String contender, String reference, double atLeast) {

		/** No goal: the ratio is only printed. */
		static final double NONE = Double.NaN;

		/**
		 * Describe the measured ratio and whether it meets the goal.
		 * @param ratio the measured ratio
		 * @param referenceName the name of the contender compared with
		 * @return the text for the note
		 */
		String describe(double ratio, String referenceName) {
			String measured = String.format(Locale.ROOT, "%.2fx of %s", ratio, referenceName);
			if (Double.isNaN(this.atLeast)) {
				return measured;
			}
			return String.format(Locale.ROOT, "%s, goal >= %.2fx: %s", measured, this.atLeast,
					(ratio >= this.atLeast) ? "met" : "**missed**");
		}

	}

}
