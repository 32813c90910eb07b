package dev.distlock.check;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Builds the engine with one {@link Mutant} in it, as a directory to put first on a JVM's
 * classpath: the mutated Lua script at its resource path, or the classes compiled from
 * the mutated Java source.
 */
final class MutantBuild {

	private MutantBuild() {
	}

	/**
	 * Build a mutant into a fresh directory.
	 * @param mutant the mutant, built into the directory of its id under {@code root}
	 * @param module the module's directory, where the mutant's file is read
	 * @param root the directory of every mutant's build
	 * @return the directory
	 * @throws IOException if a file cannot be read or written
	 * @throws IllegalStateException if the mutated source does not compile
	 */
	static Path build(Mutant mutant, Path module, Path root) throws IOException {
		Path directory = emptied(root.resolve(mutant.id()));
		Path file = directory.resolve(mutant.outputPath());
		Files.createDirectories(file.getParent());
		Files.writeString(file, mutant.mutatedText(module), StandardCharsets.UTF_8);
		if (mutant.isJava()) {
			compile(mutant, file, directory);
		}
		return directory;
	}

	/**
	 * Return a fresh, empty directory, deleting what an earlier run left in it.
	 * @param directory the directory
	 * @return the directory
	 * @throws IOException if it cannot be emptied or created
	 */
	static Path emptied(Path directory) throws IOException {
		if (Files.exists(directory)) {
			try (Stream<Path> files = Files.walk(directory)) {
				for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
					Files.delete(file);
				}
			}
		}
		return Files.createDirectories(directory);
	}

	private static void compile(Mutant mutant, Path source, Path directory) {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		StringWriter diagnostics = new StringWriter();
		List<String> options = List.of("--release", "17", "-parameters", "-proc:none", "-nowarn", "-classpath",
				System.getProperty("java.class.path"), "-d", directory.toString());
		boolean compiled = compiler
			.getTask(diagnostics, null, null, options, null,
					compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)
						.getJavaFileObjects(new File[] { source.toFile() }))
			.call();
		if (!compiled) {
			throw new IllegalStateException("Mutant '" + mutant.id() + "' does not compile:\n" + diagnostics);
		}
	}

}
