package dev.distlock.check;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import dev.distlock.redis.QuorumNodes;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * One run of the randomized fault checker: starts the Redis servers (one lock Redis, or
 * the nodes of a Redlock quorum, and the store of the fenced registers) and the worker
 * JVMs, lets the {@link Nemesis} inject faults for the given time, stops the workers and
 * checks the recorded history, printing a summary line ({@code [check] seed=...
 * faults=... operations=... violations=<n> {<kind>=<n>, ...}}).
 * {@link CheckRandomFaultScheduleTests} runs it in the test JVM; {@link #main} runs it in
 * a JVM of its own, as {@code MutationScoreTests} does with a mutated engine first on the
 * classpath, which the worker JVMs inherit.
 */
final class CheckRun {

	static final int WORKERS = 3;

	static final int THREADS = 4;

	private static final Duration SETTLE = Duration.ofSeconds(15);

	private CheckRun() {
	}

	/**
	 * Run the checker and exit with status 1 when it found a violation.
	 * @param args the seed, the seconds to inject faults for, the directory to keep the
	 * histories in (emptied first), and optionally the number of lock nodes (1, the
	 * default, for one Redis; more for a Redlock quorum)
	 * @throws Exception if the run could not be set up
	 */
	public static void main(String[] args) throws Exception {
		int nodes = (args.length > 3) ? Integer.parseInt(args[3]) : 1;
		Result result = run(Long.parseLong(args[0]), Integer.parseInt(args[1]), Path.of(args[2]), nodes);
		System.out.flush();
		System.exit(result.violations().isEmpty() ? 0 : 1);
	}

	/**
	 * Run the checker on one Redis.
	 * @param seed the seed of the fault schedule and of the workers' choices
	 * @param seconds how long the nemesis injects faults
	 * @param directory where to keep the histories, emptied first
	 * @return the violations found, with the drivers the workers used
	 * @throws Exception if the run could not be set up
	 */
	static Result run(long seed, int seconds, Path directory) throws Exception {
		return run(seed, seconds, directory, 1);
	}

	/**
	 * Run the checker on one Redis or on a Redlock quorum.
	 * @param seed the seed of the fault schedule and of the workers' choices
	 * @param seconds how long the nemesis injects faults
	 * @param directory where to keep the histories, emptied first
	 * @param nodes how many lock nodes: 1 for one Redis, more for a Redlock quorum
	 * @return the violations found, with the drivers the workers used
	 * @throws Exception if the run could not be set up
	 */
	static Result run(long seed, int seconds, Path directory, int nodes) throws Exception {
		System.out.println("[check] seed=" + seed + " seconds=" + seconds + " nodes=" + nodes
				+ " (replay: -Ddistlock.check.seed=" + seed + ")");
		try (Closer closer = new Closer()) {
			return run(closer, seed, seconds, freshDirectory(directory), nodes);
		}
	}

	private static Result run(Closer closer, long seed, int seconds, Path directory, int nodes) throws Exception {
		QuorumNodes quorum = (nodes > 1) ? closer.add(new QuorumNodes(nodes)) : null;
		List<RedisServer> lockNodes = (quorum != null) ? IntStream.range(0, nodes).mapToObj(quorum::node).toList()
				: List.of(closer
					.add(RedisServer.canStepClock() ? RedisServer.startWithSteppableClock() : RedisServer.start()));
		if (quorum != null) {
			// Only then does every node grant the workers' locks
			quorum.awaitUp(NodeFaults.RESTART_DELAY);
		}
		RedisServer storeRedis = closer.add(RedisServer.start());
		RedisTestClient store = closer.add(RedisTestClient.connect(storeRedis.uri(), Duration.ofSeconds(10)));
		Path faultsFile = directory.resolve("faults.log");
		History faults = closer.add(History.appendTo(faultsFile));
		Violations violations = new Violations();
		WorkerFleet fleet = new WorkerFleet(closer, lockNodes, storeRedis.uri(), directory, seed, WORKERS, THREADS);
		System.out.println("[check] seed=" + seed + " drivers " + fleet.drivers());
		fleet.awaitReady((failure) -> violations.add("worker-failed", failure));
		FencedRegister register = new FencedRegister(store.sync());
		Nemesis nemesis;
		if (quorum != null) {
			nemesis = new Nemesis(seed, fleet, quorum, faults);
		}
		else {
			ClockSteps clockSteps = new ClockSteps(~seed, lockNodes.get(0), faults);
			System.out.println("[check] seed=" + seed + " lock " + lockNodes.get(0) + ", " + clockSteps.describe());
			nemesis = new Nemesis(seed, fleet, lockNodes.get(0), faults, clockSteps);
		}
		nemesis.runFor(Duration.ofSeconds(seconds));
		fleet.stopAll((failure) -> violations.add("worker-failed", failure));
		try (Closer checkers = new Closer()) {
			List<RedisCommands<String, String>> locks = lockNodes.stream()
				.map((node) -> checkers.add(RedisTestClient.connect(node.uri(), Duration.ofSeconds(10))).sync())
				.toList();
			locks.forEach((redis) -> checkNoLockKeyLeft(redis, violations));
			fleet.closeAll((failure) -> violations.add("worker-failed", failure));
			checkNoConnectionLeft(fleet, locks, violations);
		}
		CheckHistory history = (quorum != null) ? new CheckHistory(QuorumNodes.TOKEN_LEAD) : new CheckHistory();
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
		return new Result(violations, history.drivers.toString());
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

	private static void checkNoConnectionLeft(WorkerFleet fleet, List<RedisCommands<String, String>> nodes,
			Violations violations) {
		try {
			await().atMost(SETTLE)
				.pollInterval(Duration.ofMillis(200))
				.until(() -> otherClients(nodes) == 0 && openProxyConnections(fleet) == 0);
		}
		catch (ConditionTimeoutException ex) {
			violations.add("connection-leaked", otherClients(nodes) + " client connections besides the checker's and "
					+ openProxyConnections(fleet) + " through the proxies after every worker closed");
		}
	}

	/**
	 * Return how many clients the lock nodes have besides the checker's own connection to
	 * each.
	 */
	private static long otherClients(List<RedisCommands<String, String>> nodes) {
		return nodes.stream().mapToLong((redis) -> redis.clientList().lines().count() - 1).sum();
	}

	private static int openProxyConnections(WorkerFleet fleet) {
		int open = 0;
		for (int slot = 0; slot < fleet.size(); slot++) {
			open += fleet.network(slot).openConnections();
		}
		return open;
	}

	/**
	 * What a run found.
	 *
	 * @param violations the broken promises, by kind
	 * @param drivers the driver of every worker incarnation
	 */
	record Result(Violations violations, String drivers) {

	}

}
