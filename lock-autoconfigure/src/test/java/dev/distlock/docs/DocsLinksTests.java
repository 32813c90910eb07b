package dev.distlock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that every relative link of the project's Markdown documents leads somewhere: to
 * a file or folder of the repository and, for a link into a Markdown document with a
 * {@code #fragment}, to one of its headings; and that every source file or test class
 * they name in code ({@code `redis/RedisHold.java`}, {@code `check/Mutants`}) exists. The
 * decision records name the files that implement them this way, so a file moved or
 * renamed without its records fails here; a superseded record's source files are history
 * and may be gone.
 */
class DocsLinksTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*)$");

	/** A source file named in a code span, such as {@code `redis/RedisHold.java`}. */
	private static final Pattern SOURCE_FILE = Pattern.compile("`([\\w./-]+\\.(?:java|lua|kt))(?:#\\w+)?`");

	/**
	 * A class named by its package's last folders in a code span, such as
	 * {@code `check/Mutants`} or {@code `redis/HandOverFaultTests#method`}.
	 */
	private static final Pattern CLASS = Pattern.compile("`((?:[a-z]+/)+[A-Z]\\w+)(?:#\\w+)?`");

	private static final Pattern SOURCE = Pattern.compile("\\.(java|lua|kt)(#.*)?$");

	private static final Pattern CODE_BLOCK = Pattern.compile("```.*?```", Pattern.DOTALL);

	private final Map<Path, Set<String>> anchors = new HashMap<>();

	@Test
	void everyRelativeLinkOfTheDocsLeadsToAFileAndHeadingThatExist() throws IOException {
		List<Path> documents = documents();
		List<String> broken = new ArrayList<>();
		int links = 0;
		for (Path document : documents) {
			String text = CODE_BLOCK.matcher(Files.readString(document)).replaceAll("");
			boolean superseded = superseded(text);
			Matcher link = LINK.matcher(text);
			while (link.find()) {
				String target = link.group(1);
				if (target.matches("[a-z]+:.*") || (superseded && SOURCE.matcher(target).find())) {
					continue;
				}
				links++;
				String problem = problem(document, target);
				if (problem != null) {
					broken.add(ROOT.relativize(document) + ": " + target + " (" + problem + ")");
				}
			}
		}
		assertThat(links).as("relative links in %s", documents).isGreaterThan(100);
		assertThat(broken).as("broken links").isEmpty();
	}

	@Test
	void everySourceFileOrClassTheDocsNameInCodeExists() throws IOException {
		List<String> sources = sources();
		List<String> missing = new ArrayList<>();
		int named = 0;
		for (Path document : documents()) {
			String text = Files.readString(document);
			if (superseded(text)) {
				continue;
			}
			for (Pattern pattern : List.of(SOURCE_FILE, CLASS)) {
				Matcher name = pattern.matcher(text);
				while (name.find()) {
					named++;
					String suffix = "/" + name.group(1) + ((pattern == CLASS) ? ".java" : "");
					if (sources.stream().noneMatch((source) -> source.endsWith(suffix))) {
						missing.add(ROOT.relativize(document) + ": " + name.group());
					}
				}
			}
		}
		assertThat(named).isGreaterThan(100);
		assertThat(missing).as("source files or classes named in the docs that do not exist").isEmpty();
	}

	/**
	 * Return the paths of the repository's source files, with {@code /} between folders.
	 */
	private static List<String> sources() throws IOException {
		try (Stream<Path> files = Files.walk(ROOT)) {
			return files.map((file) -> ROOT.relativize(file).toString().replace('\\', '/'))
				.filter((file) -> file.endsWith(".java") || file.endsWith(".lua") || file.endsWith(".kt"))
				.filter((file) -> !file.contains("/target/"))
				.map((file) -> "/" + file)
				.toList();
		}
	}

	/**
	 * Return whether a document is a superseded decision record, whose source files are
	 * history: they may be gone, as the decision is.
	 */
	private static boolean superseded(String text) {
		return text.contains("\n- Status: Superseded");
	}

	private static List<Path> documents() throws IOException {
		List<Path> documents = new ArrayList<>();
		for (String name : List.of("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "sample-app/README.md")) {
			documents.add(ROOT.resolve(name));
		}
		try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
		}
		return documents;
	}

	private String problem(Path document, String target) {
		int hash = target.indexOf('#');
		String path = (hash >= 0) ? target.substring(0, hash) : target;
		Path file = path.isEmpty() ? document : document.getParent().resolve(path).normalize();
		if (!Files.exists(file)) {
			return "no such file";
		}
		if (hash >= 0 && file.toString().endsWith(".md") && !anchors(file).contains(target.substring(hash + 1))) {
			return "no such heading";
		}
		return null;
	}

	/**
	 * Return the fragments GitHub gives the headings of a Markdown document: lower case,
	 * punctuation dropped, spaces turned into hyphens, a repeated one numbered.
	 */
	private Set<String> anchors(Path markdown) {
		return this.anchors.computeIfAbsent(markdown, (file) -> {
			Set<String> anchors = new HashSet<>();
			Map<String, Integer> seen = new HashMap<>();
			boolean inCode = false;
			for (String line : lines(file)) {
				if (line.startsWith("```")) {
					inCode = !inCode;
					continue;
				}
				Matcher heading = HEADING.matcher(line);
				if (!inCode && heading.matches()) {
					String anchor = heading.group(1)
						.trim()
						.toLowerCase(Locale.ROOT)
						.replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
						.replace(' ', '-');
					int count = seen.merge(anchor, 1, Integer::sum);
					anchors.add((count == 1) ? anchor : anchor + "-" + (count - 1));
				}
			}
			return anchors;
		});
	}

	private static List<String> lines(Path file) {
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
