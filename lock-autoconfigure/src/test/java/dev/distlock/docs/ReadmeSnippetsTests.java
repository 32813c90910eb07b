package dev.distlock.docs;

import java.nio.file.Path;
import java.util.List;

import dev.distlock.docs.Snippets.Snippet;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that every {@code java} code block of the README and of the user guide is a
 * tagged region of test sources, so that no snippet a user copies drifts from code that
 * compiles and runs: this module's tests ({@link ReadmeExamplesTests} runs this package's
 * examples) and the tests of {@code distlock-test} and of the sample application, which
 * their own builds compile and run.
 */
class ReadmeSnippetsTests {

	private static final List<Path> SOURCES = List.of(Path.of("src", "test", "java"),
			Path.of("..", "distlock-test", "src", "test", "java"), Path.of("..", "sample-app", "src", "test", "java"));

	@Test
	void everyJavaSnippetOfTheReadmeIsATaggedRegionOfCompiledCode() {
		assertEveryJavaSnippetIsATaggedRegion(Path.of("..", "README.md"));
	}

	@Test
	void everyJavaSnippetOfTheUserGuideIsATaggedRegionOfCompiledCode() {
		assertEveryJavaSnippetIsATaggedRegion(Path.of("..", "docs", "guide.md"));
	}

	private void assertEveryJavaSnippetIsATaggedRegion(Path markdown) {
		List<Snippet> blocks = Snippets.javaBlocks(markdown);
		List<String> regions = SOURCES.stream()
			.flatMap((sources) -> Snippets.taggedRegions(sources).stream())
			.map(Snippet::code)
			.toList();
		assertThat(blocks).isNotEmpty();
		for (Snippet block : blocks) {
			assertThat(regions)
				.as("The java snippet at %s:%n%s%nis no tagged region of %s", block.origin(), block.code(), SOURCES)
				.contains(block.code());
		}
	}

}
