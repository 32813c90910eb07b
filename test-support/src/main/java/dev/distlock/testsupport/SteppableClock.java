package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The wall clock of a {@code redis-server} process, which a test can step: the process
 * runs with libfaketime preloaded, which reads the clock's offset from real time from a
 * file on every call, so that writing the file steps the server's {@code TIME} and key
 * expiry at once. The monotonic clock stays real.
 * <p>
 * libfaketime is the Debian package {@code libfaketime}. It does not load into every
 * {@code redis-server} build: Debian's, linked with jemalloc, fails at startup, so a
 * server with a steppable clock runs the binary bundled in the
 * {@code com.github.codemonstur:embedded-redis} test dependency.
 */
final class SteppableClock {

	private static final List<Path> LIBRARIES = List.of(Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
			Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
			Path.of("/usr/lib/faketime/libfaketime.so.1"), Path.of("/usr/local/lib/faketime/libfaketime.so.1"));

	private final Path library;

	private final Path offsetFile;

	private Duration offset = Duration.ZERO;

	private SteppableClock(Path library, Path offsetFile) {
		this.library = library;
		this.offsetFile = offsetFile;
	}

	/**
	 * Returns whether libfaketime is installed where this class looks for it.
	 */
	static boolean isAvailable() {
		return library().isPresent();
	}

	/**
	 * Returns a clock at real time whose offset file is in the given directory.
	 * @throws IllegalStateException if libfaketime is not installed
	 */
	static SteppableClock in(Path directory) {
		Path library = library().orElseThrow(() -> new IllegalStateException(
				"Stepping redis-server's clock needs libfaketime, which is not installed (looked for " + LIBRARIES
						+ "): install the package libfaketime, such as with 'apt-get install libfaketime'"));
		SteppableClock clock = new SteppableClock(library, directory.resolve("clock-offset"));
		clock.write();
		return clock;
	}

	/**
	 * Returns the environment that makes a process read this clock.
	 */
	Map<String, String> environment() {
		return Map.of("LD_PRELOAD", this.library.toString(), "FAKETIME_TIMESTAMP_FILE", this.offsetFile.toString(),
				"FAKETIME_NO_CACHE", "1", "FAKETIME_DONT_FAKE_MONOTONIC", "1");
	}

	/**
	 * Steps the clock by the given time, back when negative, from wherever earlier steps
	 * left it.
	 */
	synchronized void step(Duration step) {
		this.offset = this.offset.plus(step);
		write();
	}

	/**
	 * Returns how far the clock is from real time, behind when negative.
	 */
	synchronized Duration offset() {
		return this.offset;
	}

	/**
	 * Writes the offset, in seconds with a sign as libfaketime reads it, in one rename,
	 * so that the server never reads half a file.
	 */
	private void write() {
		String seconds = String.format(Locale.ROOT, "%+.6f", this.offset.toNanos() / 1e9);
		try {
			Path partial = Files.createTempFile(this.offsetFile.getParent(), "clock-offset", ".partial");
			Files.writeString(partial, seconds + "\n", StandardCharsets.US_ASCII);
			Files.move(partial, this.offsetFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write the clock offset " + seconds + " to " + this.offsetFile,
					ex);
		}
	}

	private static Optional<Path> library() {
		return LIBRARIES.stream().filter(Files::isReadable).findFirst();
	}

}
