package dev.distlock.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.DistributedSemaphore;
import dev.distlock.FencedLock;
import dev.distlock.Leadership;
import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LeaseOptions;
import dev.distlock.LockEvent;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockRegistry;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;

import static org.awaitility.Awaitility.await;

/**
 * A rival lock user that {@link CrossProcessLockTests} runs in its own JVM, driven
 * through standard input and output, whose registry talks to Redis through the given
 * {@link TestDriver} (its name). Four modes:
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
 * <li>{@code permit <driver> <redis-uri> <semaphore-name> <permits> <lease-millis>}:
 * takes a permit of the semaphore without waiting, in watchdog mode with that lease time,
 * prints {@code ACQUIRED <fencing token>} and holds it until the JVM ends.</li>
 * <li>{@code permits <driver> <redis-uri> <semaphore-name> <permits> <threads>
 * <iterations>}: prints {@code READY}, waits for the line {@code go}, runs the threads,
 * each taking a permit, holding it up to {@value #MAX_PERMIT_HOLD_MILLIS} ms and
 * releasing it that many times, prints one {@link HoldIntervals#line} per hold, then
 * {@code DONE}, and exits.</li>
 * <li>{@code lead <driver> <redis-uri> <name> <lease-millis>}: once a first lock was
 * taken and released (so that no term is granted by a command that waited for the JVM to
 * warm up), starts the leadership of that name (in watchdog mode with that lease time)
 * and prints {@code CANDIDATE}; prints
 * {@code GRANTED <fencing token> <wall-clock millis>} and
 * {@code REVOKED <fencing token> <wall-clock millis> <reason>} as the events come, and
 * the stretches in which {@code isLeader()}, asked every
 * {@value LeaderBeliefs#SAMPLE_MILLIS} ms, said it leads, as {@link LeaderBeliefs} prints
 * them; then answers commands, one per line: {@code is-leader}
 * ({@code IS-LEADER <true|false>}), {@code yield} ({@code YIELDED}), {@code stop}
 * ({@code STOPPED}) and {@code start} ({@code STARTED}).</li>
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

	/** The longest a thread of {@code permits} holds its permit. */
	static final long MAX_PERMIT_HOLD_MILLIS = 3;

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	private static final Duration PERMIT_WAIT = Duration.ofSeconds(30);

	private LockWorkerMain() {
	}

	public static void main(String[] args) throws Exception {
		try {
			TestDriver driver = TestDriver.valueOf(args[1]);
			switch (args[0]) {
				case "increment" -> increment(driver, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
				case "hold" -> hold(driver, args[2], args[3], args[4], Duration.ofMillis(Long.parseLong(args[5])),
						millisOrZero(args, 6), millisOrZero(args, 7));
				case "permit" -> permit(driver, args[2], args[3], Integer.parseInt(args[4]),
						Duration.ofMillis(Long.parseLong(args[5])));
				case "permits" -> permits(driver, args[2], args[3], Integer.parseInt(args[4]),
						Integer.parseInt(args[5]), Integer.parseInt(args[6]));
				case "lead" -> lead(driver, args[2], args[3], Duration.ofMillis(Long.parseLong(args[4])));
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
			awaitGo();
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

	private static void permit(TestDriver driver, String uri, String name, int permits, Duration lease)
			throws Exception {
		try (TestLockRegistry locks = TestLockRegistry.create(driver, uri, lease)) {
			LockLease permit = locks.registry().semaphore(name, permits).acquire(Duration.ZERO);
			System.out.println("ACQUIRED " + permit.fencingToken());
			BufferedReader in = stdin();
			while (in.readLine() != null) {
				// Held until the JVM ends
			}
		}
	}

	private static void permits(TestDriver driver, String uri, String name, int permits, int threads, int iterations)
			throws Exception {
		try (TestLockRegistry locks = TestLockRegistry.create(driver, uri, Duration.ofSeconds(30))) {
			DistributedSemaphore semaphore = locks.registry().semaphore(name, permits);
			semaphore.acquire(PERMIT_WAIT).release();
			awaitGo();
			SharedCounter.runConcurrently(threads, iterations, () -> {
				LockLease permit = semaphore.acquire(PERMIT_WAIT);
				long start = HoldIntervals.nowMicros();
				LockSupport.parkNanos(
						ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(MAX_PERMIT_HOLD_MILLIS)));
				long end = HoldIntervals.nowMicros();
				permit.release();
				System.out.println(HoldIntervals.line(new HoldIntervals.Interval(start, end, permit.fencingToken())));
			});
			System.out.println("DONE");
		}
	}

	/**
	 * Print {@code READY} and wait for the line {@code go}.
	 */
	private static void awaitGo() throws Exception {
		System.out.println("READY");
		if (!"go".equals(stdin().readLine())) {
			throw new IllegalStateException("Expected 'go'");
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

	private static void lead(TestDriver driver, String uri, String name, Duration lease) throws Exception {
		try (TestLockRegistry locks = TestLockRegistry.create(driver, uri, TestLockRegistry.settings(lease),
				LockWorkerMain::printLeadershipEvent)) {
			locks.registry()
				.tryAcquire("warm-up", Duration.ofSeconds(10), LeaseOptions.fixed(Duration.ofSeconds(30)))
				.orElseThrow()
				.release();
			Leadership leadership = locks.registry().leadership(name);
			leadership.start();
			System.out.println("CANDIDATE");
			try (LeaderBeliefs beliefs = LeaderBeliefs.start(leadership)) {
				BufferedReader in = stdin();
				for (String line = in.readLine(); line != null; line = in.readLine()) {
					switch (line) {
						case "is-leader" -> System.out.println("IS-LEADER " + leadership.isLeader());
						case "yield" -> {
							leadership.yieldLeadership();
							System.out.println("YIELDED");
						}
						case "stop" -> {
							leadership.stop();
							System.out.println("STOPPED");
						}
						case "start" -> {
							leadership.start();
							System.out.println("STARTED");
						}
						default -> throw new IllegalArgumentException("Unknown command " + line);
					}
				}
			}
		}
	}

	private static void printLeadershipEvent(LockEvent event) {
		if (event instanceof LeadershipGrantedEvent granted) {
			System.out.println("GRANTED " + granted.fencingToken() + " " + System.currentTimeMillis());
		}
		else if (event instanceof LeadershipRevokedEvent revoked) {
			System.out.println(
					"REVOKED " + revoked.fencingToken() + " " + System.currentTimeMillis() + " " + revoked.reason());
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
			// The loss was published before the release threw; the listener hears of it
			// on the registry's event thread
			await().atMost(Duration.ofSeconds(10)).until(() -> !locks.lostEvents().isEmpty());
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
