package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Deletes temporary files and directories.
 */
final class TempFiles {

	private TempFiles() {
	}

	/**
	 * Creates a new, empty work directory for a server in the temp directory, readable by
	 * its owner alone.
	 * @param server what the directory is for, such as {@code redis-server}
	 */
	static Path newWorkDirectory(String server) {
		try {
			return Files.createTempDirectory("distlock-" + server + "-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a work directory for " + server, ex);
		}
	}

	/**
	 * Returns a folder of the temp directory for files that this user's JVMs extract once
	 * and share, such as server binaries; it may not exist yet.
	 * @param prefix what the files are, such as {@code distlock-redis}
	 */
	static Path userCache(String prefix) {
		return Path.of(System.getProperty("java.io.tmpdir"), prefix + "-" + System.getProperty("user.name"));
	}

	/**
	 * Deletes a file, or a directory with everything in it; does nothing if it does not
	 * exist.
	 */
	static void deleteRecursively(Path root) {
		if (!Files.exists(root)) {
			return;
		}
		try (Stream<Path> files = Files.walk(root)) {
			for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
				Files.deleteIfExists(file);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not delete " + root, ex);
		}
	}

}
