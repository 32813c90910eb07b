package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * Draws the headline comparison of a run as an SVG that GitHub renders in the docs: for
 * each scenario (uncontended, 16 threads, one key, two cross-process ones), distlock,
 * Redisson and Spring Integration side by side, their throughput as a ratio to the
 * scenario's baseline (the raw floor, or the naive spinner when contended) in the upper
 * panel and their p99 wait in the lower one for the contended scenarios.
 *
 * @since 0.1.0
 */
public final class HeadlineChart {

	/**
	 * The contenders drawn, by label: the display names of the rows that stand for each.
	 */
	private static final Map<String, List<String>> CONTENDERS = contenders();

	private static final List<String> COLOURS = List.of("#2e7d32", "#c62828", "#1565c0", "#6a8fd0");

	private static final List<String> SCENARIOS = List.of(Goals.UNCONTENDED, Goals.DISTINCT, Goals.ONE_KEY,
			CrossProcessScenario.TWO_JVMS_FOUR_THREADS.title(), CrossProcessScenario.FOUR_JVMS_ONE_THREAD.title());

	private static final double[] ROUND_STEPS = { 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 };

	private static final int WIDTH = 860;

	private static final int PANEL = 250;

	private static final int LEFT = 60;

	private static final int TOP = 60;

	private HeadlineChart() {
	}

	/**
	 * Return the chart of a run.
	 * @param result the run
	 * @param caption what the run was, such as its date and machine
	 * @return the SVG document
	 */
	public static String svg(Benchmarks.Result result, String caption) {
		List<Group> groups = groups(result);
		StringBuilder svg = new StringBuilder();
		int height = TOP + 2 * PANEL + 110;
		svg.append(String.format(Locale.ROOT,
				"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
						+ "font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
				WIDTH, height));
		text(svg, LEFT, 22, 15, "bold", "distlock against Redisson and Spring Integration");
		text(svg, LEFT, 40, 11, "normal", caption);
		legend(svg, 50);
		double maxRatio = Math.max(1.2,
				groups.stream()
					.flatMap((group) -> group.bars.stream())
					.mapToDouble(Bar::ratio)
					.filter((ratio) -> !Double.isNaN(ratio))
					.max()
					.orElse(1));
		panel(svg, groups, TOP + 40, "throughput, ratio to the baseline (raw floor; naive spinner when contended)",
				maxRatio, Bar::ratio, "%.2fx", 1.0);
		List<Group> contended = groups.stream().filter((group) -> group.contended).toList();
		double maxMillis = contended.stream()
			.flatMap((group) -> group.bars.stream())
			.mapToDouble(Bar::p99Millis)
			.filter((millis) -> !Double.isNaN(millis))
			.max()
			.orElse(1);
		panel(svg, contended, TOP + PANEL + 90, "p99 wait for the lock, ms (contended scenarios)", maxMillis,
				Bar::p99Millis, "%.1f", Double.NaN);
		return svg.append("</svg>\n").toString();
	}

	private static List<Group> groups(Benchmarks.Result result) {
		List<Group> groups = new ArrayList<>();
		for (String scenario : SCENARIOS) {
			List<Bar> bars = new ArrayList<>();
			for (Map.Entry<String, List<String>> contender : CONTENDERS.entrySet()) {
				bar(result, scenario, contender.getKey(), contender.getValue()).ifPresent(bars::add);
			}
			if (!bars.isEmpty()) {
				groups.add(new Group(scenario, !scenario.equals(Goals.UNCONTENDED) && !scenario.equals(Goals.DISTINCT),
						bars));
			}
		}
		return groups;
	}

	private static Optional<Bar> bar(Benchmarks.Result result, String scenario, String label, List<String> names) {
		for (String name : names) {
			for (Row row : result.rows()) {
				if (row.scenario().equals(scenario) && row.contender().equals(name)) {
					return Optional.of(new Bar(label, row.ratio(), row.p99Nanos() / 1e6));
				}
			}
			for (CrossProcessTable table : result.crossProcess()) {
				if (table.title().equals(scenario)) {
					for (CrossProcessRow row : table.rows()) {
						if (row.contender().equals(name)) {
							return Optional.of(new Bar(label, row.ratio(), row.p99Nanos() / 1e6));
						}
					}
				}
			}
		}
		return Optional.empty();
	}

	private static void panel(StringBuilder svg, List<Group> groups, int top, String title, double largest,
			ToDoubleFunction<Bar> value, String format, double reference) {
		double max = roundScale(largest * 1.05);
		int bottom = top + PANEL - 40;
		int plotHeight = bottom - top;
		text(svg, LEFT, top - 8, 12, "bold", title);
		for (int i = 0; i <= 4; i++) {
			double tick = max * i / 4;
			int y = bottom - (int) Math.round(plotHeight * tick / max);
			svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>%n",
					LEFT, y, WIDTH - 20, y));
			text(svg, LEFT - 6, y + 4, 10, "normal", String.format(Locale.ROOT, format, tick), "end");
		}
		if (!Double.isNaN(reference)) {
			int y = bottom - (int) Math.round(plotHeight * reference / max);
			svg.append(String.format(Locale.ROOT,
					"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>%n", LEFT,
					y, WIDTH - 20, y));
		}
		if (groups.isEmpty()) {
			return;
		}
		int groupWidth = (WIDTH - 20 - LEFT) / groups.size();
		for (int g = 0; g < groups.size(); g++) {
			Group group = groups.get(g);
			int barWidth = Math.min(36, (groupWidth - 20) / CONTENDERS.size());
			int x = LEFT + g * groupWidth + (groupWidth - barWidth * group.bars.size()) / 2;
			for (Bar bar : group.bars) {
				double v = value.applyAsDouble(bar);
				if (!Double.isNaN(v)) {
					int h = (int) Math.round(plotHeight * Math.min(v, max) / max);
					svg.append(String.format(Locale.ROOT,
							"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n", x, bottom - h,
							barWidth - 3, h, colour(bar.label)));
					text(svg, x + (barWidth - 3) / 2, bottom - h - 3, 9, "normal",
							String.format(Locale.ROOT, format, v), "middle");
				}
				x += barWidth;
			}
			text(svg, LEFT + g * groupWidth + groupWidth / 2, bottom + 16, 11, "normal", group.scenario, "middle");
		}
	}

	/**
	 * Return the top of a scale of four equal steps that reaches the given value, each
	 * step a round number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten), so that
	 * the ticks read 0.5x or 15 ms rather than 0.4x or 11.7 ms.
	 */
	static double roundScale(double largest) {
		double step = largest / 4;
		double power = Math.pow(10, Math.floor(Math.log10(step)));
		for (double multiple : ROUND_STEPS) {
			if (multiple * power >= step) {
				return 4 * multiple * power;
			}
		}
		return 40 * power;
	}

	private static void legend(StringBuilder svg, int y) {
		int x = LEFT;
		for (String label : CONTENDERS.keySet()) {
			svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
					x, y, colour(label)));
			text(svg, x + 16, y + 10, 11, "normal", label);
			x += 24 + label.length() * 7;
		}
	}

	private static String colour(String label) {
		return COLOURS.get(new ArrayList<>(CONTENDERS.keySet()).indexOf(label));
	}

	private static void text(StringBuilder svg, int x, int y, int size, String weight, String text) {
		text(svg, x, y, size, weight, text, "start");
	}

	private static void text(StringBuilder svg, int x, int y, int size, String weight, String text, String anchor) {
		svg.append(String.format(Locale.ROOT,
				"<text x=\"%d\" y=\"%d\" font-size=\"%d\" font-weight=\"%s\" text-anchor=\"%s\">%s</text>%n", x, y,
				size, weight, anchor, escape(text)));
	}

	private static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
	}

	private static Map<String, List<String>> contenders() {
		Map<String, List<String>> contenders = new LinkedHashMap<>();
		contenders.put("distlock", List.of("distlock obtain().lock()"));
		contenders.put("Redisson", List.of("Redisson lock() watchdog", "Redisson lock(30s)"));
		contenders.put("Spring Integration spin", List.of("Spring Integration spin"));
		contenders.put("Spring Integration pub/sub", List.of("Spring Integration pub/sub"));
		return contenders;
	}

	/**
	 * One contender in one scenario.
	 */
	private record Bar(String label, double ratio, double p99Millis) {

	}

	/**
	 * One scenario's bars.
	 */
	private record Group(String scenario, boolean contended, List<Bar> bars) {

	}

}
