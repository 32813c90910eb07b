package dev.distlock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Locates the {@code redis-server} executable used by {@link RedisServer}.
 * <p>
 * The first of these wins: the path in the system property {@value #PATH_PROPERTY};
 * {@code redis-server} on the {@code PATH}; the binary shipped in the
 * {@code com.github.codemonstur:embedded-redis} test dependency, extracted to the temp
 * directory. The choice is made once per JVM and logged to {@code System.err}.
 */
public final class RedisServerBinary {

	/**
	 * System property that names the {@code redis-server} executable to use.
	 */
	public static final String PATH_PROPERTY = "distlock.redis-server";

	private static final Pattern VERSION = Pattern.compile("v=(\\S+)");

	private static final long VERSION_TIMEOUT_SECONDS = 10;

	private static @Nullable RedisServerBinary resolved;

	private final Path path;

	private final String version;

	private RedisServerBinary(Path path, String version) {
		this.path = path;
		this.version = version;
	}

	/**
	 * Returns the {@code redis-server} executable for this JVM, locating it on first use.
	 * @return the binary
	 */
	public static synchronized RedisServerBinary get() {
		if (resolved == null) {
			resolved = locate();
		}
		return resolved;
	}

	/**
	 * Returns the path of the executable.
	 * @return the path
	 */
	public Path path() {
		return this.path;
	}

	/**
	 * Returns the server version reported by {@code redis-server --version}, such as
	 * {@code 7.0.15}.
	 * @return the version
	 */
	public String version() {
		return this.version;
	}

	private static RedisServerBinary locate() {
		String configured = System.getProperty(PATH_PROPERTY);
		if (configured != null && !configured.isBlank()) {
			Path path = Path.of(configured);
			if (!Files.isExecutable(path)) {
				throw new IllegalStateException("-D" + PATH_PROPERTY + "=" + configured + " is not an executable file");
			}
			return inspect(path, "system property " + PATH_PROPERTY);
		}
		return findOnPath().map((path) -> inspect(path, "PATH"))
			.orElseGet(() -> inspect(EmbeddedRedisBinary.extract(), "embedded-redis test dependency"));
	}

	private static Optional<Path> findOnPath() {
		String searchPath = System.getenv("PATH");
		if (searchPath == null) {
			return Optional.empty();
		}
		return Arrays.stream(searchPath.split(File.pathSeparator))
			.filter((directory) -> !directory.isEmpty())
			.map((directory) -> Path.of(directory, "redis-server"))
			.filter((candidate) -> Files.isRegularFile(candidate) && Files.isExecutable(candidate))
			.findFirst();
	}

	private static RedisServerBinary inspect(Path path, String origin) {
		RedisServerBinary binary = new RedisServerBinary(path, readVersion(path));
		System.err
			.println("[distlock-testsupport] Using redis-server " + binary.version + " from " + origin + ": " + path);
		return binary;
	}

	private static String readVersion(Path path) {
		try {
			Process process = new ProcessBuilder(path.toString(), "--version").redirectErrorStream(true).start();
			if (!process.waitFor(VERSION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(
						path + " --version did not exit within " + VERSION_TIMEOUT_SECONDS + "s");
			}
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			Matcher matcher = VERSION.matcher(output);
			if (process.exitValue() != 0 || !matcher.find()) {
				throw new IllegalStateException(
						path + " --version failed (exit code " + process.exitValue() + "): " + output);
			}
			return matcher.group(1);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + path + " --version", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + path + " --version", ex);
		}
	}

}
