package dev.distlock.benchmarks;

import java.util.List;
import java.util.Locale;

/**
 * Formats the rows as a Markdown table.
 *
 * @since 0.1.0
 */
public final class Report {

	private Report() {
	}

	/**
	 * Format the rows.
	 * @param header lines printed above the table
	 * @param rows the rows
	 * @return the Markdown text
	 */
	public static String format(List<String> header, List<Row> rows) {
		StringBuilder text = new StringBuilder();
		header.forEach((line) -> text.append(line).append('\n'));
		text.append('\n');
		text.append("| contender | scenario | ops/s | ratio | p50 | p99 | goal (docs/design.md) | notes |\n");
		text.append("|---|---|--:|--:|--:|--:|---|---|\n");
		for (Row row : rows) {
			text.append("| ")
				.append(row.contender())
				.append(" | ")
				.append(row.scenario())
				.append(" | ")
				.append(Double.isNaN(row.opsPerSecond()) ? "-"
						: String.format(Locale.ROOT, "%,.0f", row.opsPerSecond()))
				.append(" | ")
				.append(Double.isNaN(row.ratio()) ? "-" : String.format(Locale.ROOT, "%.2fx", row.ratio()))
				.append(" | ")
				.append(duration(row.p50Nanos()))
				.append(" | ")
				.append(duration(row.p99Nanos()))
				.append(" | ")
				.append(row.goal())
				.append(" | ")
				.append(row.excluded() ? "" : "**CHECK FAILED** ")
				.append(row.note())
				.append(" |\n");
		}
		return text.toString();
	}

	/**
	 * Format the table of a cross-process scenario.
	 * @param table the table
	 * @return the Markdown text: the title, how it was measured, the table
	 */
	public static String format(CrossProcessTable table) {
		StringBuilder text = new StringBuilder();
		text.append("### ").append(table.title()).append("\n\n").append(table.method()).append("\n\n");
		text.append("| contender | acq/s | ratio | p50 wait | p99 wait | max wait | JVM share: worst round"
				+ " | median round | commands/acq | requests/acq | publishes/release | goal (docs/design.md) | notes |\n");
		text.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|\n");
		for (CrossProcessRow row : table.rows()) {
			text.append("| ")
				.append(String.join(" | ", row.contender(), String.format(Locale.ROOT, "%,.0f", row.opsPerSecond()),
						String.format(Locale.ROOT, "%.2fx", row.ratio()), duration(row.p50Nanos()),
						duration(row.p99Nanos()), duration(row.maxNanos()), percent(row.leastShare()),
						percent(row.medianLeastShare()),
						String.format(Locale.ROOT, "%.2f", row.commandsPerAcquisition()),
						String.format(Locale.ROOT, "%.2f", row.requestsPerAcquisition()),
						String.format(Locale.ROOT, "%.2f", row.publishesPerRelease()), row.goal(), notes(row)))
				.append(" |\n");
		}
		return text.toString();
	}

	private static String notes(CrossProcessRow row) {
		String acquisitions = String.format(Locale.ROOT, "%d acquisitions", row.acquisitions());
		return (row.excluded() ? "" : "**CHECK FAILED** ")
				+ (row.verdicts().isEmpty() ? acquisitions : row.verdicts() + "; " + acquisitions);
	}

	private static String percent(double share) {
		return String.format(Locale.ROOT, "%.0f%%", share * 100);
	}

	private static String duration(long nanos) {
		if (nanos <= 0) {
			return "-";
		}
		if (nanos < 1_000_000) {
			return String.format(Locale.ROOT, "%.0f µs", nanos / 1e3);
		}
		return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
	}

}
