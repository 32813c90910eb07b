package dev.distlock.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
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

	private static @Nullable RedisServerBinary resolved;

	private static @Nullable RedisServerBinary embedded;

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
	 * Returns the {@code redis-server} bundled in the
	 * {@code com.github.codemonstur:embedded-redis} test dependency, whatever else this
	 * JVM uses, extracting it on first use.
	 * @return the binary
	 */
	static synchronized RedisServerBinary embedded() {
		if (embedded == null) {
			embedded = inspect(EmbeddedRedisBinary.extract(), "embedded-redis test dependency");
		}
		return embedded;
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
		return Executables.onPath("redis-server")
			.map((path) -> inspect(path, "PATH"))
			.orElseGet(RedisServerBinary::embedded);
	}

	private static RedisServerBinary inspect(Path path, String origin) {
		RedisServerBinary binary = new RedisServerBinary(path, Executables.version(path, VERSION));
		System.err
			.println("[distlock-testsupport] Using redis-server " + binary.version + " from " + origin + ": " + path);
		return binary;
	}

}
