package dev.distlock.check;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.redis.QuorumNodes;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.TcpProxy;

/**
 * Faults on one node of a Redlock quorum, drawn at random, each healed before it returns:
 * {@code node-kill} kills the node and restarts it empty a while later,
 * {@code node-restart} restarts it empty at once, {@code node-pause} freezes it
 * ({@code SIGSTOP}), and {@code node-partition} stalls or cuts every worker's proxy to
 * it. A restarted node counts as healed once it has been up for {@link #RESTART_DELAY},
 * when it grants again: until then the workers' attempts find it refusing, and no fault
 * is put on another node. None of them is a data loss of the quorum: the other nodes keep
 * every hold they granted.
 */
final class NodeFaults {

	/** How the kinds of faults on a node begin. */
	static final String PREFIX = "node-";

	/**
	 * How long after a fault on a node healed the commands it held up may still run: a
	 * lease for the keys granted late to expire, and a command timeout.
	 */
	static final Duration AFTERMATH = CheckWorkerMain.LEASE.plus(CheckWorkerMain.COMMAND_TIMEOUT);

	/**
	 * How long a restarted node must have been up to grant a worker's lock again: the
	 * workers' lease and lock delay, with the drift allowance.
	 */
	static final Duration RESTART_DELAY = restartDelay();

	private final QuorumNodes nodes;

	private final int count;

	private final WorkerFleet fleet;

	private final Random random;

	/**
	 * Create the faults on the given nodes.
	 * @param nodes the quorum
	 * @param fleet the workers, whose proxies to a node a partition stalls or cuts
	 * @param random draws the node and the fault's length
	 */
	NodeFaults(QuorumNodes nodes, WorkerFleet fleet, Random random) {
		this.nodes = nodes;
		this.count = nodes.uris().size();
		this.fleet = fleet;
		this.random = random;
	}

	/**
	 * Inject a fault on a node drawn at random and heal it.
	 * @param kind {@code node-kill}, {@code node-pause}, {@code node-restart} or
	 * {@code node-partition}
	 * @return the node it hit, {@code node<i>}
	 */
	String inject(String kind) {
		int index = this.random.nextInt(this.count);
		RedisServer node = this.nodes.node(index);
		switch (kind) {
			case "node-kill" -> {
				node.kill();
				pause(300 + this.random.nextInt(2200));
				restart(node);
			}
			case "node-restart" -> restart(node);
			case "node-pause" -> {
				node.pause();
				try {
					pause(100 + this.random.nextInt(1400));
				}
				finally {
					node.resume();
				}
			}
			case "node-partition" -> partition(index, this.random.nextBoolean());
			default -> throw new IllegalArgumentException(kind);
		}
		return "node" + index;
	}

	/**
	 * Restart a node empty and wait until it grants again.
	 */
	private void restart(RedisServer node) {
		node.restart();
		this.nodes.awaitUp(RESTART_DELAY);
	}

	/**
	 * Stall or cut every worker's proxy to a node for a while, and heal them.
	 */
	private void partition(int index, boolean stall) {
		try {
			for (int slot = 0; slot < this.fleet.size(); slot++) {
				TcpProxy proxy = this.fleet.network(slot).toNode(index);
				if (stall) {
					proxy.stall();
				}
				else {
					proxy.cutConnections();
				}
			}
			pause(100 + this.random.nextInt(1400));
		}
		finally {
			for (int slot = 0; slot < this.fleet.size(); slot++) {
				this.fleet.network(slot).toNode(index).heal();
			}
		}
	}

	private static Duration restartDelay() {
		return QuorumNodes.minUptime(CheckWorkerMain.LEASE.plus(CheckWorkerMain.LOCK_DELAY));
	}

	/**
	 * Wait while a fault lasts: the fault is the point.
	 */
	private static void pause(long millis) {
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
	}

}
