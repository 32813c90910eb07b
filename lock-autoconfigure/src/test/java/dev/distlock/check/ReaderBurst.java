package dev.distlock.check;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The schedule of a stream of readers of one read/write lock that arrive while a writer
 * waits: a first reader that keeps its share for {@link #firstKeepMillis()}, a writer
 * that begins to wait behind it half a gap later, and readers that arrive one every
 * {@code gapMillis} from then on, each keeping its share for two gaps, so that they
 * overlap, for {@link #STREAM} after the writer began. Readers that arrive more than
 * {@link LivenessChecks#READER_HEAD_START} after the writer, while the first reader still
 * holds its share, must queue behind the writer; readers let past it would keep it out
 * until its wait ran out, longer than {@link LivenessChecks#BOUND} after the first
 * reader's release, which {@link LivenessChecks} reports as {@code writer-starved}.
 * Offsets are in milliseconds from the start of the burst.
 *
 * @param gapMillis the time between two arrivals after the first reader's
 */
record ReaderBurst(int gapMillis) {

	/** How long readers keep arriving after the writer began to wait. */
	static final Duration STREAM = Duration.ofSeconds(7);

	/** How long the writer may wait: until readers stop arriving, and a gap more. */
	static final Duration WRITER_WAIT = Duration.ofSeconds(8);

	/** How long each reader may wait: behind the writer and whoever it waits for. */
	static final Duration READER_WAIT = Duration.ofSeconds(5);

	/**
	 * Return a burst whose gap the given random picks, from 400 to 700 milliseconds.
	 * @param random the worker's random
	 * @return the burst
	 */
	static ReaderBurst pick(Random random) {
		return new ReaderBurst(400 + random.nextInt(300));
	}

	/**
	 * Return when the writer begins to acquire.
	 * @return its offset
	 */
	long writerOffset() {
		return this.gapMillis / 2;
	}

	/**
	 * Return how many readers arrive after the first.
	 * @return the count
	 */
	int laterReaders() {
		return (int) (STREAM.toMillis() / this.gapMillis);
	}

	/**
	 * Return when the given reader begins to acquire.
	 * @param reader 0 for the first reader, up to {@link #laterReaders()}
	 * @return its offset
	 */
	long readerOffset(int reader) {
		return (reader == 0) ? 0 : writerOffset() + (long) reader * this.gapMillis;
	}

	/**
	 * Return how long the given reader keeps its share.
	 * @param reader 0 for the first reader, up to {@link #laterReaders()}
	 * @return the time in milliseconds
	 */
	int keepMillis(int reader) {
		return (reader == 0) ? firstKeepMillis() : 2 * this.gapMillis;
	}

	/**
	 * Return how long the first reader keeps its share: until two more readers arrived
	 * after the writer's head start.
	 * @return the time in milliseconds
	 */
	int firstKeepMillis() {
		return (int) (writerOffset() + TimeUnit.MICROSECONDS.toMillis(LivenessChecks.READER_HEAD_START)
				+ 2L * this.gapMillis);
	}

}
