package dev.distlock.check;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Jepsen-like check: {@value #WORKERS} worker JVMs of {@value #THREADS} threads, each
 * talking to the same Redis through its own driver (Lettuce's own client, Spring Data
 * Redis on Lettuce and on Jedis, in an order the seed picks), lock four names through
 * every API (thread-owned locks, leases, annotated plain, transactional,
 * {@code CompletableFuture}, {@code Mono} and multi-key methods) and, holding them,
 * increment a fenced and a plain counter, take a read/write lock (reading or writing its
 * counters, and in bursts of readers while a writer waits) and permits of two semaphores,
 * and campaign for a leadership (now and then waiting through a fresh registry, whose
 * first subscription to lock grants one waiter's interrupt must not fail for the others),
 * while a {@link Nemesis} pauses and kills workers (some of them while they wait for a
 * lock, some while they hold one), pauses, restarts and flushes Redis, stalls, cuts and
 * slows the workers' connections and interrupts their threads (some of them while they
 * wait) on a seeded schedule. Waiters also give up on their own: wait times that run out,
 * cancelled {@code Mono}s. The recorded history must show no broken promise
 * ({@link SafetyChecks}, {@link PromiseChecks}), no free lock left unserved while wanted
 * ({@link LivenessChecks}), no lock key left in Redis, and no thread or connection left
 * once the workers closed.
 * <p>
 * The seed is printed with the driver of every worker
 * ({@code [check] seed=... drivers ...}); replay a run with
 * {@code -Ddistlock.check.seed=<seed>}. Runs {@value #DEFAULT_SECONDS} s by default;
 * longer with {@code -Ddistlock.check.seconds=<n>}, or 20 minutes with
 * {@code ./mvnw -pl lock-autoconfigure -am verify -Pcheck-long}. Histories are kept under
 * {@code target/check/seed-<seed>}.
 */
@Timeout(value = 45, unit = TimeUnit.MINUTES)
class CheckRandomFaultScheduleTests {

	private static final int WORKERS = 3;

	private static final int THREADS = 4;

	private static final int DEFAULT_SECONDS = 60;

	private static final Duration SETTLE = Duration.ofSeconds(15);

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void randomFaultScheduleKeepsEveryPromise() throws Exception {
		long seed = Long.getLong("distlock.check.seed", ThreadLocalRandom.current().nextLong());
		int seconds = Integer.getInteger("distlock.check.seconds", DEFAULT_SECONDS);
		System.out
			.println("[check] seed=" + seed + " seconds=" + seconds + " (replay: -Ddistlock.check.seed=" + seed + ")");
		Path directory = freshDirectory(Path.of("target", "check", "seed-" + seed));
		RedisServer lockRedis = this.closer.add(RedisServer.start());
		RedisServer storeRedis = this.closer.add(RedisServer.start());
		RedisTestClient store = this.closer.add(RedisTestClient.connect(storeRedis.uri(), Duration.ofSeconds(10)));
		Path faultsFile = directory.resolve("faults.log");
		History faults = this.closer.add(History.appendTo(faultsFile));
		Violations violations = new Violations();
		WorkerFleet fleet = new WorkerFleet(this.closer, lockRedis, storeRedis.uri(), directory, seed, WORKERS,
				THREADS);
		System.out.println("[check] seed=" + seed + " drivers " + fleet.drivers());
		fleet.awaitReady((failure) -> violations.add("worker-failed", failure));
		FencedRegister register = new FencedRegister(store.sync());
		Nemesis nemesis = new Nemesis(seed, fleet, lockRedis, faults);
		nemesis.runFor(Duration.ofSeconds(seconds));
		fleet.stopAll((failure) -> violations.add("worker-failed", failure));
		try (RedisTestClient locks = RedisTestClient.connect(lockRedis.uri(), Duration.ofSeconds(10))) {
			checkNoLockKeyLeft(locks.sync(), violations);
			fleet.closeAll((failure) -> violations.add("worker-failed", failure));
			checkNoConnectionLeft(fleet, locks.sync(), violations);
		}
		CheckHistory history = new CheckHistory();
		history.readFaults(faultsFile);
		fleet.histories().forEach(history::readWorker);
		Map<String, List<String>> registerLogs = new LinkedHashMap<>();
		for (String key : WorkerOps.KEYS) {
			registerLogs.put("c:" + key, register.log("c:" + key));
		}
		registerLogs.put(WorkerOps.READ_WRITE, register.log(WorkerOps.READ_WRITE));
		new SafetyChecks(history, violations).run(registerLogs);
		new PromiseChecks(history, violations).run();
		LivenessChecks liveness = new LivenessChecks(history, violations);
		liveness.run();
		long operations = history.calls.values().stream().mapToLong(Long::longValue).sum();
		System.out.println("[check] seed=" + seed + " seconds=" + seconds + " drivers=" + history.drivers + " faults="
				+ nemesis.injectedCount() + " " + nemesis.injected() + " cancellations="
				+ history.calls.getOrDefault("monoCancel:OK", 0L) + " readerBursts="
				+ countCalls(history, "readerBurst") + " freshRegistries=" + countCalls(history, "freshRegistry")
				+ " freshInterrupts=" + history.freshInterrupts + " waits=" + waitsByOutcome(history) + " liveness="
				+ liveness.summary() + " operations=" + operations + " holds=" + history.holds.size() + " "
				+ countHolds(history, (hold) -> history.drivers.getOrDefault(hold.incarnation, "?")) + " "
				+ countHolds(history, (hold) -> hold.api) + " reads=" + history.reads.size() + " criticalSections="
				+ history.ops.size() + " lossActions="
				+ history.holds.values().stream().mapToInt((hold) -> hold.lossActions).sum() + " commits="
				+ history.holds.values().stream().mapToInt((hold) -> hold.commitStarts.size()).sum() + " violations="
				+ violations.count() + " " + violations.counts());
		System.out.println("[check] calls " + history.calls);
		if (!violations.isEmpty()) {
			System.out.println("[check] violations of seed " + seed + " on drivers " + history.drivers + ":\n"
					+ violations.report());
		}
		assertThat(violations.count())
			.as("violations of seed %d on drivers %s (histories in %s):%n%s", seed, history.drivers, directory,
					violations.report())
			.isZero();
	}

	private static long countCalls(CheckHistory history, String api) {
		return history.calls.entrySet()
			.stream()
			.filter((call) -> call.getKey().startsWith(api + ":"))
			.mapToLong(Map.Entry::getValue)
			.sum();
	}

	private static Map<String, Long> waitsByOutcome(CheckHistory history) {
		return history.waits.stream()
			.collect(Collectors.groupingBy(CheckHistory.Wait::outcome, TreeMap::new, Collectors.counting()));
	}

	private static Map<String, Long> countHolds(CheckHistory history, Function<CheckHistory.Hold, String> by) {
		return history.holds.values().stream().collect(Collectors.groupingBy(by, TreeMap::new, Collectors.counting()));
	}

	private static Path freshDirectory(Path directory) throws IOException {
		if (Files.isDirectory(directory)) {
			try (Stream<Path> files = Files.list(directory)) {
				for (Path file : files.toList()) {
					Files.delete(file);
				}
			}
		}
		return Files.createDirectories(directory);
	}

	private static void checkNoLockKeyLeft(RedisCommands<String, String> redis, Violations violations) {
		try {
			await().atMost(SETTLE).pollInterval(Duration.ofMillis(200)).until(() -> lockKeys(redis).isEmpty());
		}
		catch (ConditionTimeoutException ex) {
			for (String key : lockKeys(redis)) {
				violations.add("key-left", key + " with TTL " + redis.pttl(key) + " ms, " + SETTLE.toSeconds()
						+ " s after every worker stopped");
			}
		}
	}

	private static List<String> lockKeys(RedisCommands<String, String> redis) {
		// Lock keys and the wait queues' helper keys; fencing keys outlive them by design
		return redis.keys("*lock:*").stream().filter((key) -> !key.endsWith("!fence")).toList();
	}

	private static void checkNoConnectionLeft(WorkerFleet fleet, RedisCommands<String, String> redis,
			Violations violations) {
		try {
			await().atMost(SETTLE)
				.pollInterval(Duration.ofMillis(200))
				.until(() -> redis.clientList().lines().count() == 1 && openProxyConnections(fleet) == 0);
		}
		catch (ConditionTimeoutException ex) {
			violations.add("connection-leaked",
					(redis.clientList().lines().count() - 1) + " client connections besides the checker's and "
							+ openProxyConnections(fleet) + " through the proxies after every worker closed");
		}
	}

	private static int openProxyConnections(WorkerFleet fleet) {
		int open = 0;
		for (int slot = 0; slot < fleet.size(); slot++) {
			open += fleet.proxy(slot).openConnections();
		}
		return open;
	}

}
