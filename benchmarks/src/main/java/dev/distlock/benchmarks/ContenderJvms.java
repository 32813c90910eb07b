package dev.distlock.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.testsupport.RivalJvm;

/**
 * The JVMs of the cross-process scenarios, spawned once for the run: each runs
 * {@link ContenderJvmMain} with the same heap and the same contenders connected, so that
 * no JVM of a round differs from another; this JVM only coordinates. A round runs one
 * contender on the first few of them, all starting at the same moment.
 *
 * @since 0.1.0
 */
final class ContenderJvms implements AutoCloseable {

	/** The heap of every spawned JVM. */
	static final String HEAP = "-Xmx256m";

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(180);

	private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(60);

	/** How long before its start a round is announced to every JVM. */
	private static final long START_LEAD_MILLIS = 100;

	private final List<RivalJvm> jvms = new ArrayList<>();

	private final Path counterFile;

	private final SharedCounter counter;

	private int rounds;

	private ContenderJvms(Path counterFile) {
		this.counterFile = counterFile;
		this.counter = SharedCounter.map(counterFile);
	}

	/**
	 * Spawn the JVMs and wait until every one has connected its contenders.
	 * @param count how many JVMs
	 * @param ids the contenders every JVM connects
	 * @param host Redis host
	 * @param port Redis port
	 * @param leaseTime the lease of watchdog-mode locks
	 * @return the running JVMs
	 */
	static ContenderJvms start(int count, List<String> ids, String host, int port, Duration leaseTime) {
		ContenderJvms started = new ContenderJvms(newCounterFile());
		try {
			List<String> args = new ArrayList<>(List.of(host, Integer.toString(port),
					Long.toString(leaseTime.toMillis()), started.counterFile.toString()));
			args.addAll(ids);
			for (int i = 0; i < count; i++) {
				started.jvms.add(RivalJvm.builder(ContenderJvmMain.class)
					.jvmOptions(HEAP)
					.args(args.toArray(String[]::new))
					.start());
			}
			for (RivalJvm jvm : started.jvms) {
				jvm.awaitLine("READY", STARTUP_TIMEOUT);
			}
			return started;
		}
		catch (RuntimeException | AssertionError ex) {
			started.close();
			throw ex;
		}
	}

	/**
	 * Return how many JVMs run.
	 * @return the count
	 */
	int size() {
		return this.jvms.size();
	}

	/**
	 * Run one contended round of one contender on the first JVMs, every one starting at
	 * the same moment, and wait for all of them.
	 * @param jvmCount on how many JVMs
	 * @param id the contender's id
	 * @param name the lock's name
	 * @param threads threads per JVM
	 * @param time how long the round lasts
	 * @param capPerJvm acquisitions per JVM at most (0: no cap)
	 * @return what the round did
	 */
	Round run(int jvmCount, String id, String name, int threads, Duration time, int capPerJvm) {
		String tag = "r" + (this.rounds++);
		this.counter.reset();
		long start = System.currentTimeMillis() + START_LEAD_MILLIS;
		List<RivalJvm> used = this.jvms.subList(0, jvmCount);
		for (RivalJvm jvm : used) {
			jvm.send(String.join(" ", "RUN", tag, id, name, Integer.toString(threads), Long.toString(time.toMillis()),
					Integer.toString(capPerJvm), Long.toString(start)));
		}
		long[] acquisitions = new long[jvmCount];
		long elapsed = 0;
		Samples waits = new Samples();
		for (int j = 0; j < jvmCount; j++) {
			String[] done = used.get(j).awaitLine("DONE " + tag + " ", ANSWER_TIMEOUT).split(" ", 5);
			acquisitions[j] = Long.parseLong(done[2]);
			elapsed = Math.max(elapsed, Long.parseLong(done[3]));
			waits.addAll(Samples.fromMicrosText((done.length > 4) ? done[4] : ""));
		}
		return new Round(acquisitions, elapsed, waits, this.counter.value());
	}

	@Override
	public void close() {
		this.jvms.forEach(RivalJvm::close);
		try {
			Files.deleteIfExists(this.counterFile);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not delete " + this.counterFile, ex);
		}
	}

	private static Path newCounterFile() {
		try {
			return Files.createTempFile("distlock-bench-counter-", ".bin");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create the shared counter's file", ex);
		}
	}

	/**
	 * What one contender did in one round on several JVMs.
	 *
	 * @param acquisitions acquisitions per JVM
	 * @param elapsedNanos the longest JVM's wall time from the common start
	 * @param waits every acquisition's wait for the lock
	 * @param counted the {@link SharedCounter}'s count: every holder added one
	 */
	record Round(long[] acquisitions, long elapsedNanos, Samples waits, long counted) {

		/**
		 * Return the acquisitions of all JVMs.
		 * @return the sum
		 */
		long total() {
			long total = 0;
			for (long count : this.acquisitions) {
				total += count;
			}
			return total;
		}

		/**
		 * Return the throughput of all JVMs together.
		 * @return acquisitions per second
		 */
		double opsPerSecond() {
			return total() * 1e9 / Math.max(1, this.elapsedNanos);
		}

		/**
		 * Return the smallest share of the acquisitions that any JVM took.
		 * @return 0 to 1 divided by the JVM count
		 */
		double leastShare() {
			long least = Long.MAX_VALUE;
			for (long count : this.acquisitions) {
				least = Math.min(least, count);
			}
			return (double) least / Math.max(1, total());
		}

		/**
		 * Return whether no holder's update of the shared counter was lost.
		 * @return whether exclusion held across the JVMs
		 */
		boolean excluded() {
			return this.counted == total();
		}

	}

}
