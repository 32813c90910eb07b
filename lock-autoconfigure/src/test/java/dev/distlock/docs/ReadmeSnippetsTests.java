package dev.distlock.docs;

import java.nio.file.Path;
import java.util.List;

import dev.distlock.docs.Snippets.Snippet;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that every {@code java} code block of the README is a tagged region of this
 * package's sources, which compile and run in {@link ReadmeExamplesTests}, so that no
 * snippet a user copies drifts from the code.
 */
class ReadmeSnippetsTests {

	private static final Path SOURCES = Path.of("src", "test", "java", "dev", "distlock", "docs");

	@Test
	void everyJavaSnippetOfTheReadmeIsATaggedRegionOfCompiledCode() {
		List<Snippet> blocks = Snippets.javaBlocks(Path.of("..", "README.md"));
		List<String> regions = Snippets.taggedRegions(SOURCES).stream().map(Snippet::code).toList();
		assertThat(blocks).isNotEmpty();
		for (Snippet block : blocks) {
			assertThat(regions)
				.as("The java snippet at %s:%n%s%nis no tagged region of %s", block.origin(), block.code(), SOURCES)
				.contains(block.code());
		}
	}

}
