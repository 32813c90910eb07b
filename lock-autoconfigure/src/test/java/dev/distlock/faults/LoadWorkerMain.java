package dev.distlock.faults;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.distlock.FencedLock;
import dev.distlock.LockLostException;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.LiveThreads;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.slf4j.LoggerFactory;

/**
 * One rival JVM of {@link LockLoadTests}:
 * {@code <redis-uri> <threads> <names> <seconds>}. Prints {@code READY}, waits for the
 * line {@code go}, then runs critical sections on random lock names for the given time:
 * each one reads a per-name counter, writes it back plus one (a non-atomic
 * read-modify-write that only the lock keeps whole) and appends its fencing token to a
 * per-name list ({@code RPUSH}). Then it closes everything and prints:
 * <ul>
 * <li>{@code COUNTS <n0>,<n1>,...}: successful sections per name;</li>
 * <li>{@code STATS sections=.. failures=.. lost=.. p50WaitMicros=.. p99WaitMicros=..
 * maxWaitMicros=..};</li>
 * <li>{@code THREADS baseline=.. after=.. extra=[..]}: threads alive before the registry
 * was created and after it was closed, and the names of those that outlived it.</li>
 * </ul>
 * Failures are printed to standard error and end the JVM with exit code 1.
 */
final class LoadWorkerMain {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final Duration THREADS_SETTLE = Duration.ofSeconds(10);

	private LoadWorkerMain() {
	}

	/** Key of the counter of lock name {@code i}. */
	static String counterKey(int i) {
		return "load:counter:" + i;
	}

	/** Key of the fencing-token list of lock name {@code i}. */
	static String tokensKey(int i) {
		return "load:tokens:" + i;
	}

	/** Lock name {@code i}. */
	static String lockName(int i) {
		return "load-" + i;
	}

	public static void main(String[] args) throws Exception {
		try {
			((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
			run(args[0], Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
		}
		catch (Throwable ex) {
			ex.printStackTrace();
			System.exit(1);
		}
		System.exit(0);
	}

	private static void run(String uri, int threads, int names, int seconds) throws Exception {
		Set<String> baseline = LiveThreads.now();
		AtomicLongArray counts = new AtomicLongArray(names);
		List<long[]> waits = new ArrayList<>();
		long failures = 0;
		long lost = 0;
		try (TestLockRegistry locks = TestLockRegistry.create(uri, Duration.ofSeconds(30));
				RedisTestClient client = RedisTestClient.connect(uri, Duration.ofSeconds(5))) {
			locks.registry().acquire("warm-up", WAIT).release();
			System.out.println("READY");
			BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			if (!"go".equals(in.readLine())) {
				throw new IllegalStateException("Expected 'go'");
			}
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
			ExecutorService pool = Executors.newFixedThreadPool(threads);
			try {
				List<Future<Worker>> futures = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					futures.add(pool.submit(() -> new Worker(locks, client.sync(), names, counts).runUntil(deadline)));
				}
				for (Future<Worker> future : futures) {
					Worker worker = future.get(seconds + 60L, TimeUnit.SECONDS);
					waits.add(Arrays.copyOf(worker.waits, worker.sections));
					failures += worker.failures;
					lost += worker.lost;
				}
			}
			finally {
				pool.shutdownNow();
				pool.awaitTermination(10, TimeUnit.SECONDS);
			}
		}
		long[] allWaits = waits.stream().flatMapToLong(Arrays::stream).sorted().toArray();
		System.out.println("COUNTS " + IntStream.range(0, names)
			.mapToObj((i) -> Long.toString(counts.get(i)))
			.collect(Collectors.joining(",")));
		System.out.println("STATS sections=" + allWaits.length + " failures=" + failures + " lost=" + lost
				+ " p50WaitMicros=" + percentile(allWaits, 0.50) + " p99WaitMicros=" + percentile(allWaits, 0.99)
				+ " maxWaitMicros=" + percentile(allWaits, 1.0));
		Set<String> extra = LiveThreads.beyond(baseline, THREADS_SETTLE);
		System.out
			.println("THREADS baseline=" + baseline.size() + " after=" + LiveThreads.now().size() + " extra=" + extra);
		System.out.println("DONE");
	}

	private static long percentile(long[] sortedNanos, double percentile) {
		if (sortedNanos.length == 0) {
			return 0;
		}
		int index = (int) Math.min(sortedNanos.length - 1, Math.ceil(percentile * sortedNanos.length) - 1);
		return TimeUnit.NANOSECONDS.toMicros(sortedNanos[Math.max(0, index)]);
	}

	/**
	 * One thread's critical sections.
	 */
	private static final class Worker {

		private final TestLockRegistry locks;

		private final RedisCommands<String, String> redis;

		private final int names;

		private final AtomicLongArray counts;

		private long[] waits = new long[1024];

		private int sections;

		private long failures;

		private long lost;

		Worker(TestLockRegistry locks, RedisCommands<String, String> redis, int names, AtomicLongArray counts) {
			this.locks = locks;
			this.redis = redis;
			this.names = names;
			this.counts = counts;
		}

		Worker runUntil(long deadline) {
			while (System.nanoTime() - deadline < 0) {
				int i = ThreadLocalRandom.current().nextInt(this.names);
				FencedLock lock = this.locks.registry().obtain(lockName(i));
				long start = System.nanoTime();
				if (!lock.tryLock(WAIT)) {
					this.failures++;
					continue;
				}
				long waited = System.nanoTime() - start;
				try {
					String value = this.redis.get(counterKey(i));
					long next = ((value != null) ? Long.parseLong(value) : 0) + 1;
					this.redis.set(counterKey(i), Long.toString(next));
					this.redis.rpush(tokensKey(i), Long.toString(lock.fencingToken()));
				}
				finally {
					try {
						lock.unlock();
					}
					catch (LockLostException ex) {
						this.lost++;
					}
				}
				this.counts.incrementAndGet(i);
				record(waited);
			}
			return this;
		}

		private void record(long waitedNanos) {
			if (this.sections == this.waits.length) {
				this.waits = Arrays.copyOf(this.waits, this.waits.length * 2);
			}
			this.waits[this.sections++] = waitedNanos;
		}

	}

}
