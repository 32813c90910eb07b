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
import java.util.Map;

/**
 * Extracts the {@code redis-server} binary shipped in the
 * {@code com.github.codemonstur:embedded-redis} jar for this operating system and CPU.
 * <p>
 * The binary is cached in a per-user folder of the temp directory. Each extraction writes
 * a unique partial file and atomically renames it, so concurrent JVMs never see a
 * half-written binary.
 */
final class EmbeddedRedisBinary {

	private static final Map<String, String> RESOURCES = Map.of("linux-amd64", "redis-server-6.2.6-v5-linux-amd64",
			"linux-arm64", "redis-server-6.2.7-linux-arm64", "darwin-amd64", "redis-server-6.2.6-v5-darwin-amd64",
			"darwin-arm64", "redis-server-6.2.6-v5-darwin-arm64");

	private EmbeddedRedisBinary() {
	}

	/**
	 * Returns the path of the extracted binary, extracting it if the cache lacks it.
	 */
	static Path extract() {
		String platform = Platform.current();
		String resource = RESOURCES.get(platform);
		if (resource == null) {
			throw new IllegalStateException("embedded-redis ships no redis-server for " + platform
					+ "; put redis-server on the PATH or set -D" + RedisServerBinary.PATH_PROPERTY);
		}
		URL url = EmbeddedRedisBinary.class.getClassLoader().getResource(resource);
		if (url == null) {
			throw new IllegalStateException("No " + resource + " on the classpath: add the test dependency "
					+ "com.github.codemonstur:embedded-redis, put redis-server on the PATH or set -D"
					+ RedisServerBinary.PATH_PROPERTY);
		}
		Path directory = TempFiles.userCache("distlock-redis");
		try {
			return extract(url, directory.resolve(resource));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not extract " + resource + " to " + directory, ex);
		}
	}

	private static Path extract(URL url, Path target) throws IOException {
		URLConnection connection = url.openConnection();
		if (Files.isExecutable(target) && Files.size(target) == connection.getContentLengthLong()) {
			return target;
		}
		Files.createDirectories(target.getParent());
		Path partial = Files.createTempFile(target.getParent(), target.getFileName().toString(), ".partial");
		try {
			try (InputStream in = connection.getInputStream()) {
				Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
			}
			Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString("rwxr-xr-x"));
			Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
			return target;
		}
		finally {
			Files.deleteIfExists(partial);
		}
	}

}
