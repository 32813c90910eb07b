package dev.distlock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileChannel.MapMode;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A counter in a memory-mapped file that the threads of several JVMs increment while
 * holding the lock, with a deliberately non-atomic read and write: a count below the
 * acquisitions shows an update lost to two holders at once, that is, a broken exclusion
 * across processes. Every JVM maps the same file; each read and write is volatile, so
 * that only two holders at once, never a stale cache, can lose an update.
 *
 * @since 0.1.0
 */
final class SharedCounter {

	private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

	private final MappedByteBuffer buffer;

	private SharedCounter(MappedByteBuffer buffer) {
		this.buffer = buffer;
	}

	/**
	 * Map the counter in the given file, creating the file if it does not exist.
	 * @param file the file every JVM maps
	 * @return the counter
	 */
	static SharedCounter map(Path file) {
		try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
				StandardOpenOption.WRITE)) {
			return new SharedCounter(channel.map(MapMode.READ_WRITE, 0, Long.BYTES));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not map the counter in " + file, ex);
		}
	}

	/**
	 * Add one, reading and then writing the count (not atomically).
	 */
	void increment() {
		long count = (long) LONG.getVolatile(this.buffer, 0);
		LONG.setVolatile(this.buffer, 0, count + 1);
	}

	/**
	 * Return the count.
	 * @return the count
	 */
	long value() {
		return (long) LONG.getVolatile(this.buffer, 0);
	}

	/**
	 * Set the count to zero, while no JVM increments it.
	 */
	void reset() {
		LONG.setVolatile(this.buffer, 0, 0L);
	}

}
