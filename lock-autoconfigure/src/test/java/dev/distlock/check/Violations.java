package dev.distlock.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Broken promises found by the checks, by kind, each with the evidence that shows it.
 */
final class Violations {

	private static final int SHOWN_PER_KIND = 8;

	private final Map<String, List<String>> byKind = new TreeMap<>();

	synchronized void add(String kind, String evidence) {
		this.byKind.computeIfAbsent(kind, (key) -> new ArrayList<>()).add(evidence);
	}

	synchronized boolean isEmpty() {
		return this.byKind.isEmpty();
	}

	synchronized int count() {
		return this.byKind.values().stream().mapToInt(List::size).sum();
	}

	/**
	 * Return the count per kind, such as {@code {overlap=2}}.
	 * @return the counts
	 */
	synchronized String counts() {
		return this.byKind.entrySet()
			.stream()
			.map((entry) -> entry.getKey() + "=" + entry.getValue().size())
			.collect(Collectors.joining(", ", "{", "}"));
	}

	/**
	 * Return a report of the first few violations of each kind.
	 * @return the report
	 */
	synchronized String report() {
		StringBuilder report = new StringBuilder();
		this.byKind.forEach((kind, evidence) -> {
			report.append(kind).append(" (").append(evidence.size()).append("):\n");
			evidence.stream().limit(SHOWN_PER_KIND).forEach((line) -> report.append("  ").append(line).append('\n'));
		});
		return report.toString();
	}

}
