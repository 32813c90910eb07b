package dev.distlock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The {@code java} code blocks of a Markdown file and the tagged regions
 * ({@code // tag::name[]} to {@code // end::name[]}) of Java sources, both normalised so
 * that they compare equal when they hold the same code: tabs at the start of a line count
 * as four spaces, the indentation common to all lines is removed, and so are trailing
 * spaces and blank lines around the code. A code block right after a
 * {@code <!-- not compiled: reason -->} line is left out, the only way to show code that
 * the build cannot compile.
 */
final class Snippets {

	private static final Pattern TAG = Pattern.compile("// tag::(.+)\\[\\]");

	private static final Pattern END = Pattern.compile("// end::(.+)\\[\\]");

	private static final Pattern NOT_COMPILED = Pattern.compile("<!-- not compiled: .+ -->");

	private Snippets() {
	}

	/**
	 * Return the {@code java} code blocks of a Markdown file.
	 * @param markdown the file
	 * @return its blocks, in their order
	 */
	static List<Snippet> javaBlocks(Path markdown) {
		List<Snippet> blocks = new ArrayList<>();
		List<String> lines = readLines(markdown);
		for (int i = 0; i < lines.size(); i++) {
			if (lines.get(i).strip().equals("```java")
					&& !(i > 0 && NOT_COMPILED.matcher(lines.get(i - 1)).matches())) {
				int start = i + 1;
				int end = start;
				while (!lines.get(end).strip().equals("```")) {
					end++;
				}
				blocks
					.add(new Snippet(markdown.getFileName() + ":" + (start + 1), normalise(lines.subList(start, end))));
				i = end;
			}
		}
		return blocks;
	}

	/**
	 * Return the tagged regions of the Java sources under a directory.
	 * @param sources the directory
	 * @return its regions
	 */
	static List<Snippet> taggedRegions(Path sources) {
		List<Snippet> regions = new ArrayList<>();
		try (Stream<Path> files = Files.walk(sources)) {
			files.filter((file) -> file.toString().endsWith(".java"))
				.sorted()
				.forEach((file) -> regions.addAll(taggedRegionsOf(file)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return regions;
	}

	private static List<Snippet> taggedRegionsOf(Path source) {
		List<Snippet> regions = new ArrayList<>();
		List<String> lines = readLines(source);
		for (int i = 0; i < lines.size(); i++) {
			Matcher tag = TAG.matcher(lines.get(i).strip());
			if (tag.matches()) {
				int start = i + 1;
				int end = start;
				while (!isEnd(lines.get(end), tag.group(1))) {
					end++;
				}
				regions
					.add(new Snippet(source.getFileName() + "#" + tag.group(1), normalise(lines.subList(start, end))));
				i = end;
			}
		}
		return regions;
	}

	private static boolean isEnd(String line, String tag) {
		Matcher end = END.matcher(line.strip());
		return end.matches() && end.group(1).equals(tag);
	}

	private static List<String> readLines(Path file) {
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String normalise(List<String> lines) {
		List<String> expanded = lines.stream().map(Snippets::expandLeadingTabs).map(String::stripTrailing).toList();
		int from = 0;
		int to = expanded.size();
		while (from < to && expanded.get(from).isEmpty()) {
			from++;
		}
		while (to > from && expanded.get(to - 1).isEmpty()) {
			to--;
		}
		List<String> code = expanded.subList(from, to);
		int indent = code.stream()
			.filter((line) -> !line.isEmpty())
			.mapToInt((line) -> line.length() - line.stripLeading().length())
			.min()
			.orElse(0);
		return String.join("\n", code.stream().map((line) -> line.isEmpty() ? line : line.substring(indent)).toList());
	}

	private static String expandLeadingTabs(String line) {
		int tabs = 0;
		while (tabs < line.length() && line.charAt(tabs) == '\t') {
			tabs++;
		}
		return "    ".repeat(tabs) + line.substring(tabs);
	}

	/**
	 * A piece of code and where it comes from.
	 *
	 * @param origin the file and line of a code block, or the file and tag of a region
	 * @param code the normalised code
	 */
	record Snippet(String origin, String code) {

	}

}
