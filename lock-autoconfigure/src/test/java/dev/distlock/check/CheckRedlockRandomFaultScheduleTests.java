package dev.distlock.check;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Jepsen-like check of {@link CheckRandomFaultScheduleTests} on a Redlock quorum of
 * {@value #NODES} independent {@code redis-server} processes: {@value CheckRun#WORKERS}
 * worker JVMs of {@value CheckRun#THREADS} threads lock four names on the quorum, all
 * with the same lease and lock delay, through the calls Redlock offers (thread-owned
 * locks, leases, annotated plain, transactional, {@code CompletableFuture}, {@code Mono}
 * and multi-key methods) and campaign for a leadership, while the {@link Nemesis} kills a
 * node and restarts it empty a while later, restarts one empty at once, pauses one, or
 * partitions one from every worker (stalling or cutting their connections to it), and
 * freezes, kills, cuts off and interrupts the workers, some of them while they wait or
 * hold. No fault loses the data of more than one node, so nothing excuses two workers
 * believing they hold the same lock at once, a fencing token out of the order of the
 * holds, or a stale write through the fence (on a Redis of its own that no fault
 * touches); the other checks of {@link CheckRun} apply as on one Redis.
 * <p>
 * The seed is printed; replay a run with {@code -Ddistlock.check.seed=<seed>}. Runs
 * {@value #DEFAULT_SECONDS} s by default, longer with
 * {@code -Ddistlock.check.seconds=<n>}. Histories are kept under
 * {@code target/check/redlock-seed-<seed>}.
 */
@Timeout(value = 45, unit = TimeUnit.MINUTES)
class CheckRedlockRandomFaultScheduleTests {

	private static final int NODES = 3;

	private static final int DEFAULT_SECONDS = 40;

	@Test
	void randomFaultScheduleOnAQuorumKeepsEveryPromise() throws Exception {
		CheckRandomFaultScheduleTests.assertRunKeepsEveryPromise(NODES, DEFAULT_SECONDS, "redlock-seed-");
	}

}
