package dev.distlock.check;

import java.util.List;
import java.util.Locale;

/**
 * Draws the result of a mutation run as an SVG that GitHub renders in
 * {@code docs/reliability.md}: the score, the checker's throughput on the unmutated
 * engine (faults and operations a minute), and one line per mutant and seed, with the
 * time and the violations of the run: the mutant green when every seed caught it, red
 * when one missed it, and each seed's line green when it caught it, red when not.
 */
final class MutationScoreFigure {

	private static final int WIDTH = 860;

	private static final int ROW = 20;

	private static final int TOP = 104;

	private static final String CAUGHT = "#2e7d32";

	private static final String MISSED = "#c62828";

	private MutationScoreFigure() {
	}

	/**
	 * Return the figure of a run.
	 * @param mutants the result of each mutant, in the order of the set
	 * @param throughput the checker's throughput on the unmutated engine
	 * @param caption what the run was: its seeds, length and machine
	 * @return the SVG document
	 */
	static String svg(List<MutantResult> mutants, Throughput throughput, String caption) {
		long caught = mutants.stream().filter(MutantResult::caught).count();
		int lines = mutants.stream().mapToInt((mutant) -> Math.max(1, mutant.seeds().size())).sum();
		StringBuilder svg = new StringBuilder();
		svg.append(String.format(Locale.ROOT,
				"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
						+ "font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
				WIDTH, TOP + lines * ROW + 16));
		text(svg, 20, 24, 15, "bold", "distlock's randomized fault checker against deliberate safety bugs");
		text(svg, 20, 42, 11, "normal", caption);
		text(svg, 20, 72, 22, "bold", caught + " of " + mutants.size() + " caught on every seed");
		text(svg, 250, 66, 12, "normal",
				String.format(Locale.ROOT, "%,.0f faults and %,.0f operations a minute on the unmutated engine",
						throughput.faultsPerMinute(), throughput.operationsPerMinute()));
		text(svg, 250, 82, 12, "normal", "with " + throughput.violations() + " violations in " + throughput.runs()
				+ " runs of the unmutated engine");
		int y = TOP;
		for (MutantResult mutant : mutants) {
			square(svg, 20, y, 14, mutant.caught() ? CAUGHT : MISSED);
			text(svg, 42, y, 12, "normal", mutant.id());
			for (SeedResult seed : mutant.seeds()) {
				String colour = seed.caught() ? CAUGHT : MISSED;
				square(svg, 290, y, 10, colour);
				text(svg, 306, y, 11, "normal", seed.outcome(), colour);
				y += ROW;
			}
			if (mutant.seeds().isEmpty()) {
				y += ROW;
			}
		}
		return svg.append("</svg>\n").toString();
	}

	private static void square(StringBuilder svg, int x, int y, int size, String fill) {
		svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n", x,
				y - size + 3, size, size, fill));
	}

	private static void text(StringBuilder svg, int x, int y, int size, String weight, String text) {
		text(svg, x, y, size, weight, text, "black");
	}

	private static void text(StringBuilder svg, int x, int y, int size, String weight, String text, String fill) {
		svg.append(String.format(Locale.ROOT,
				"<text x=\"%d\" y=\"%d\" font-size=\"%d\" font-weight=\"%s\" fill=\"%s\">%s</text>%n", x, y, size,
				weight, fill, escape(text)));
	}

	private static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
	}

	/**
	 * What the runs of one mutant came to.
	 *
	 * @param id the mutant's id
	 * @param seeds the run on each seed
	 */
	record MutantResult(String id, List<SeedResult> seeds) {

		/**
		 * Return whether every seed caught the mutant.
		 * @return whether it was caught on every seed
		 */
		boolean caught() {
			return !this.seeds.isEmpty() && this.seeds.stream().allMatch(SeedResult::caught);
		}

	}

	/**
	 * The run of one mutant on one seed.
	 *
	 * @param seed the seed
	 * @param caught whether the run reported a violation or failed
	 * @param seconds how long the run took
	 * @param kinds the violations by kind, or how the run failed
	 */
	record SeedResult(long seed, boolean caught, long seconds, String kinds) {

		/**
		 * Return the line the figure shows for the run.
		 * @return the seed, the time and the violations, or that it missed
		 */
		String outcome() {
			return "seed " + this.seed + ", " + this.seconds + " s: " + (this.caught ? this.kinds : "missed");
		}

	}

	/**
	 * How much the checker did on the unmutated engine, over all its runs.
	 *
	 * @param runs the runs
	 * @param faultsPerMinute faults injected a minute of faults
	 * @param operationsPerMinute calls the workers made a minute of faults
	 * @param violations the violations reported, which must be none
	 */
	record Throughput(int runs, double faultsPerMinute, double operationsPerMinute, int violations) {

	}

}
