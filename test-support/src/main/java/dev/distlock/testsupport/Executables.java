package dev.distlock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds programs on the {@code PATH} and runs short commands for their output, such as
 * {@code redis-server --version}.
 */
final class Executables {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private Executables() {
	}

	/**
	 * Returns the first executable file called {@code name} in a directory of the
	 * {@code PATH}.
	 */
	static Optional<Path> onPath(String name) {
		String searchPath = System.getenv("PATH");
		if (searchPath == null) {
			return Optional.empty();
		}
		return Arrays.stream(searchPath.split(File.pathSeparator))
			.filter((directory) -> !directory.isEmpty())
			.map((directory) -> Path.of(directory, name))
			.filter((candidate) -> Files.isRegularFile(candidate) && Files.isExecutable(candidate))
			.findFirst();
	}

	/**
	 * Runs {@code executable --version} and returns the first group of {@code pattern} in
	 * what it printed.
	 * @throws IllegalStateException if it fails or prints nothing that matches
	 */
	static String version(Path executable, Pattern pattern) {
		String output = output(executable.toString(), "--version");
		Matcher matcher = pattern.matcher(output);
		if (!matcher.find()) {
			throw new IllegalStateException(executable + " --version printed no version: " + output);
		}
		return matcher.group(1);
	}

	/**
	 * Runs {@code command} and returns what it printed on its standard output and error,
	 * trimmed.
	 * @throws IllegalStateException if it does not exit with code 0 within ten seconds
	 */
	static String output(String... command) {
		String description = String.join(" ", command);
		try {
			Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
			if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(description + " did not exit within " + TIMEOUT.toSeconds() + "s");
			}
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			if (process.exitValue() != 0) {
				throw new IllegalStateException(
						description + " failed (exit code " + process.exitValue() + "): " + output);
			}
			return output;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + description, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + description, ex);
		}
	}

}
