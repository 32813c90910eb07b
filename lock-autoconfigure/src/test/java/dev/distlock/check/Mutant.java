package dev.distlock.check;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A deliberate safety bug in the engine: one small edit of one of its files, such as a
 * compare dropped or a token check removed, that breaks a promise the randomized fault
 * checker is there to watch. {@link Mutants#ALL} lists them; {@link MutationScoreTests}
 * runs the checker on each.
 *
 * @param id a short name, also the directory of the mutated engine under
 * {@code target/mutants}
 * @param file the edited file, relative to the module: a Lua script under
 * {@code src/main/resources} or a Java source under {@code src/main/java}
 * @param original the exact text the edit replaces, found once in the file
 * @param replacement the text put in its place
 * @param promise the promise the edit breaks, for people to read
 * @param nodes how many lock nodes the checker runs on to catch it: 1 for one Redis, more
 * for a Redlock quorum
 */
record Mutant(String id, String file, String original, String replacement, String promise, int nodes) {

	private static final String RESOURCES = "src/main/resources/";

	private static final String SOURCES = "src/main/java/";

	/**
	 * Create a mutant that the checker catches on one Redis.
	 * @param id a short name
	 * @param file the edited file, relative to the module
	 * @param original the exact text the edit replaces
	 * @param replacement the text put in its place
	 * @param promise the promise the edit breaks
	 */
	Mutant(String id, String file, String original, String replacement, String promise) {
		this(id, file, original, replacement, promise, 1);
	}

	/**
	 * Return whether the edited file is a Java source, to be compiled, rather than a
	 * resource.
	 */
	boolean isJava() {
		return this.file.startsWith(SOURCES);
	}

	/**
	 * Return the edited file's path under an output directory: its resource path, or the
	 * path of its source under its package.
	 */
	String outputPath() {
		return this.file.substring((isJava() ? SOURCES : RESOURCES).length());
	}

	/**
	 * Read the file from the module and return its text with the edit applied.
	 * @param module the module's directory
	 * @return the mutated text
	 * @throws IOException if the file cannot be read
	 * @throws IllegalStateException if the original text is not found exactly once, as
	 * after a refactoring: the mutant must then be brought up to date
	 */
	String mutatedText(Path module) throws IOException {
		String text = Files.readString(module.resolve(this.file), StandardCharsets.UTF_8);
		int at = text.indexOf(this.original);
		if (at < 0 || text.indexOf(this.original, at + 1) >= 0) {
			throw new IllegalStateException("Mutant '" + this.id + "': its original text is "
					+ ((at < 0) ? "no longer found" : "found more than once") + " in " + this.file
					+ "; update the mutant in Mutants to the file as it is now:\n" + this.original);
		}
		return text.substring(0, at) + this.replacement + text.substring(at + this.original.length());
	}

}
