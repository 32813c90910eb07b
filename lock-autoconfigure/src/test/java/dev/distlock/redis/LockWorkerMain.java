package dev.distlock.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockRegistry;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A rival lock user that {@link CrossProcessLockTests} runs in its own JVM, driven
 * through standard input and output, whose registry talks to Redis through the given
 * {@link TestDriver} (its name). Two modes:
 * <ul>
 * <li>{@code increment <driver> <redis-uri> <threads> <iterations>}: prints
 * {@code READY}, waits for the line {@code go}, increments the {@link SharedCounter}
 * under its lock, prints {@code DONE} and exits.</li>
 * <li>{@code hold <driver> <redis-uri> <lock-name> <watchdog|fixed> <lease-millis>
 * [<delay-millis> [<wait-millis>]]}: prints {@code WAITING}, acquires the lock (in
 * watchdog mode with that lease time, or with that fixed lease; with that lock delay,
 * none if not given; waiting for it that long, not at all if not given), prints
 * {@code ACQUIRED <fencing token>} and then answers commands, one per line:
 * {@code valid}, {@code write <value>} (to a {@link FencedStorage} named
 * {@value #FENCED_STORAGE}, with the lease's fencing token; answers
 * {@code WRITE <value> ACCEPTED} or {@code REJECTED}), {@code write-naive <value>} (a
 * plain {@code SET} of {@value #NAIVE_STORAGE}) and {@code release}.</li>
 * <li>{@code read <driver> <redis-uri> <lock-name> <lease-millis>}: prints
 * {@code WAITING}, takes the read lock of the read/write lock of that name in watchdog
 * mode with that lease time, waiting for it without end, prints
 * {@code ACQUIRED <fencing token>} and then answers the commands of {@code hold}.</li>
 * <li>{@code read-write <driver> <redis-uri> <threads> <iterations>}: prints
 * {@code READY}, waits for the line {@code go}, increments the {@link SharedCounter}
 * under the write lock and reads it under the read lock, in turns, prints
 * {@code DONE <reads that saw the counter change>} and exits.</li>
 * <li>{@code read-stream <driver> <redis-uri> <lock-name> <threads> <millis>}: reads
 * under the read lock of that name on every thread, one hold after the other, for that
 * long; prints {@code READING} once the first read lock is held and {@code DONE <reads>}
 * at the end, and exits.</li>
 * </ul>
 * Failures are printed to standard error and end the JVM with exit code 1.
 */
final class LockWorkerMain {

	/** Name of the fencing-token-checked storage written by {@code write}. */
	static final String FENCED_STORAGE = "ledger:fenced";

	/** Key written without any check by {@code write-naive}. */
	static final String NAIVE_STORAGE = "ledger:naive";

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	private LockWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		try {
			TestDriver driver = TestDriver.valueOf(args[1]);
			switch (args[0]) {
				case "increment" -> increment(driver, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
				case "hold" -> hold(driver, args[2], args[3], args[4], Duration.ofMillis(Long.parseLong(args[5])),
						millisOrZero(args, 6), millisOrZero(args, 7));
				case "read" -> read(driver, args[2], args[3], Duration.ofMillis(Long.parseLong(args[4])));
				case "read-write" -> readWrite(driver, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
				case "read-stream" -> readStream(driver, args[2], args[3], Integer.parseInt(args[4]),
						Duration.ofMillis(Long.parseLong(args[5])));
				default -> throw new IllegalArgumentException("Unknown mode " + args[0]);
			}
		}
		catch (Throwable ex) {
			ex.printStackTrace();
			System.exit(1);
		}
		System.exit(0);
	}

	private static void increment(TestDriver driver, String uri, int threads, int iterations) throws Exception {
		countWhenTold(driver, uri, (counter, registry) -> {
			counter.incrementUnderLock(registry, threads, iterations);
			System.out.println("DONE");
		});
	}

	private static void readWrite(TestDriver driver, String uri, int threads, int iterations) throws Exception {
		countWhenTold(driver, uri, (counter, registry) -> System.out
			.println("DONE " + counter.incrementAndReadUnderReadWriteLock(registry, threads, iterations)));
	}

	/**
	 * Connect a registry and the {@link SharedCounter}, print {@code READY}, wait for the
	 * line {@code go} and run the given work.
	 */
	private static void countWhenTold(TestDriver driver, String uri, CounterWork work) throws Exception {
		try (TestLockRegistry locks = TestLockRegistry.create(driver, uri, Duration.ofSeconds(30));
				RedisTestClient client = RedisTestClient.connect(uri, COMMAND_TIMEOUT)) {
			locks.registry().acquire("warm-up", Duration.ofSeconds(10)).release();
			SharedCounter counter = new SharedCounter(client.sync());
			counter.value();
			System.out.println("READY");
			BufferedReader in = stdin();
			if (!"go".equals(in.readLine())) {
				throw new IllegalStateException("Expected 'go'");
			}
			work.run(counter, locks.registry());
		}
	}

	private static void readStream(TestDriver driver, String uri, String name, int threads, Duration duration)
			throws Exception {
		try (TestLockRegistry locks = TestLockRegistry.create(driver, uri, Duration.ofSeconds(30))) {
			ReaderStream stream = new ReaderStream(locks.registry().readWriteLock(name), threads);
			stream.awaitFirstRead();
			System.out.println("READING");
			System.out.println("DONE " + stream.stopAfter(duration));
		}
	}

	private static Duration millisOrZero(String[] args, int index) {
		return Duration.ofMillis((args.length > index) ? Long.parseLong(args[index]) : 0);
	}

	private static void hold(TestDriver driver, String uri, String name, String mode, Duration lease,
			Duration lockDelay, Duration waitTime) throws Exception {
		boolean watchdog = mode.equals("watchdog");
		try (TestLockRegistry locks = TestLockRegistry.create(driver, uri, watchdog ? lease : Duration.ofSeconds(30));
				RedisTestClient client = RedisTestClient.connect(uri, COMMAND_TIMEOUT)) {
			System.out.println("WAITING");
			LockLease held = locks.registry()
				.tryAcquire(name, waitTime,
						(watchdog ? LeaseOptions.WATCHDOG : LeaseOptions.fixed(lease)).withLockDelay(lockDelay))
				.orElseThrow(() -> new IllegalStateException("Lock '" + name + "' is taken"));
			answer(held, locks, client.sync());
		}
	}

	private static void read(TestDriver driver, String uri, String name, Duration lease) throws Exception {
		try (TestLockRegistry locks = TestLockRegistry.create(driver, uri, lease);
				RedisTestClient client = RedisTestClient.connect(uri, COMMAND_TIMEOUT)) {
			System.out.println("WAITING");
			FencedLock reader = locks.registry().readWriteLock(name).readLock();
			reader.lock();
			answer(reader.currentHold(), locks, client.sync());
		}
	}

	/**
	 * Print {@code ACQUIRED <fencing token>} and answer the commands of {@code hold} on
	 * the holding thread, one per line, until standard input ends.
	 */
	private static void answer(LockLease held, TestLockRegistry locks, RedisCommands<String, String> redis)
			throws Exception {
		System.out.println("ACQUIRED " + held.fencingToken());
		BufferedReader in = stdin();
		for (String line = in.readLine(); line != null; line = in.readLine()) {
			String[] command = line.split(" ", 2);
			switch (command[0]) {
				case "valid" -> System.out.println("VALID " + held.isValid());
				case "write" -> {
					boolean accepted = new FencedStorage(redis, FENCED_STORAGE).write(held.fencingToken(), command[1]);
					System.out.println("WRITE " + command[1] + (accepted ? " ACCEPTED" : " REJECTED"));
				}
				case "write-naive" -> {
					redis.set(NAIVE_STORAGE, command[1]);
					System.out.println("WRITE-NAIVE " + command[1] + " DONE");
				}
				case "release" -> release(held, locks);
				default -> throw new IllegalArgumentException("Unknown command " + line);
			}
		}
	}

	private static void release(LockLease held, TestLockRegistry locks) {
		System.out.println("VALID BEFORE RELEASE " + held.isValid());
		try {
			held.release();
			System.out.println("RELEASED");
		}
		catch (LockLostException ex) {
			System.out.println("RELEASE THREW " + ex.getClass().getSimpleName() + " " + ex.getFencingToken());
		}
		System.out.println("LOST EVENTS "
				+ locks.lostEvents().stream().map((event) -> event.name() + "#" + event.fencingToken()).toList());
	}

	private static BufferedReader stdin() {
		return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
	}

	/**
	 * Work on the {@link SharedCounter} under the locks of a registry.
	 */
	@FunctionalInterface
	private interface CounterWork {

		void run(SharedCounter counter, LockRegistry registry) throws Exception;

	}

}
