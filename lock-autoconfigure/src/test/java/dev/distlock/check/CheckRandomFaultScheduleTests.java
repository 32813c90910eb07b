package dev.distlock.check;

import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Jepsen-like check: {@value CheckRun#WORKERS} worker JVMs of {@value CheckRun#THREADS}
 * threads, each talking to the same Redis through its own driver (Lettuce's own client,
 * Spring Data Redis on Jedis, in turns the seed picks), lock four names through every API
 * (thread-owned locks, leases, annotated plain, transactional, {@code CompletableFuture},
 * {@code Mono} and multi-key methods) and, holding them, increment a fenced and a plain
 * counter, take a read/write lock (reading or writing its counters, and in bursts of
 * readers while a writer waits) and permits of two semaphores, and campaign for a
 * leadership (now and then waiting through a fresh registry, whose first subscription to
 * lock grants one waiter's interrupt must not fail for the others), while a
 * {@link Nemesis} pauses and kills workers (some of them while they wait for a lock, some
 * while they hold one), pauses, restarts and flushes Redis, stalls, cuts and slows the
 * workers' connections and interrupts their threads (some of them while they wait) on a
 * seeded schedule. Waiters also give up on their own: wait times that run out, cancelled
 * {@code Mono}s. The recorded history must show no broken promise ({@link SafetyChecks},
 * {@link PromiseChecks}), no free lock left unserved while wanted
 * ({@link LivenessChecks}), no lock key left in Redis, and no thread or connection left
 * once the workers closed.
 * <p>
 * The seed is printed with the driver of every worker
 * ({@code [check] seed=... drivers ...}); replay a run with
 * {@code -Ddistlock.check.seed=<seed>}. Runs {@value #DEFAULT_SECONDS} s by default;
 * longer with {@code -Ddistlock.check.seconds=<n>}, or 20 minutes with
 * {@code ./mvnw -pl lock-autoconfigure -am verify -Pcheck-long}. Histories are kept under
 * {@code target/check/seed-<seed>}. The run itself is {@link CheckRun}.
 */
@Timeout(value = 45, unit = TimeUnit.MINUTES)
class CheckRandomFaultScheduleTests {

	private static final int DEFAULT_SECONDS = 60;

	@Test
	void randomFaultScheduleKeepsEveryPromise() throws Exception {
		assertRunKeepsEveryPromise(1, DEFAULT_SECONDS, "seed-");
	}

	/**
	 * Run the checker on the seed {@code -Ddistlock.check.seed} names, or a random one,
	 * for {@code -Ddistlock.check.seconds} or the given seconds, and assert that it found
	 * no violation.
	 * @param nodes how many lock nodes: 1 for one Redis, more for a Redlock quorum
	 * @param defaultSeconds how long the nemesis injects faults unless told
	 * @param prefix the start of the name of the directory under {@code target/check}
	 * that keeps the histories, followed by the seed
	 * @throws Exception if the run could not be set up
	 */
	static void assertRunKeepsEveryPromise(int nodes, int defaultSeconds, String prefix) throws Exception {
		long seed = Long.getLong("distlock.check.seed", ThreadLocalRandom.current().nextLong());
		int seconds = Integer.getInteger("distlock.check.seconds", defaultSeconds);
		Path directory = Path.of("target", "check", prefix + seed);
		CheckRun.Result result = CheckRun.run(seed, seconds, directory, nodes);
		assertThat(result.violations().count())
			.as("violations of seed %d on %d lock nodes, drivers %s (histories in %s):%n%s", seed, nodes,
					result.drivers(), directory, result.violations().report())
			.isZero();
	}

}
