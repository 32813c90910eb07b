package dev.distlock.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster of three primaries on loopback ports, the 16,384 slots split evenly
 * between them, for tests that connect the way a Cluster user does. <pre class="code">
 * try (RedisCluster cluster = RedisCluster.start()) {
 *     RedisClusterClient client = RedisClusterClient.create(cluster.uris()...);
 * }
 * </pre>
 */
public final class RedisCluster implements AutoCloseable {

	private static final int NODES = 3;

	private static final int SLOTS = 16384;

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

	private final Closer processes = new Closer();

	private final List<RedisServer> nodes = new ArrayList<>();

	private RedisCluster() {
	}

	/**
	 * Starts the nodes, assigns the slots, joins the nodes and waits until every node
	 * reports the cluster as ok.
	 * @return the running cluster
	 */
	public static RedisCluster start() {
		RedisCluster cluster = new RedisCluster();
		try {
			for (int i = 0; i < NODES; i++) {
				cluster.nodes.add(cluster.processes
					.add(RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")));
			}
			cluster.form();
			return cluster;
		}
		catch (RuntimeException ex) {
			cluster.close();
			throw ex;
		}
	}

	/**
	 * Returns the URIs of the nodes, one per node.
	 * @return {@code redis://127.0.0.1:port} for each node
	 */
	public List<String> uris() {
		return this.nodes.stream().map(RedisServer::uri).toList();
	}

	/**
	 * Returns the nodes as Spring Boot's {@code spring.data.redis.cluster.nodes} property
	 * writes them.
	 * @return {@code 127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3}
	 */
	public String nodes() {
		return this.nodes.stream().map((node) -> node.host() + ":" + node.port()).collect(Collectors.joining(","));
	}

	/**
	 * Stops every node.
	 */
	@Override
	public void close() {
		try {
			this.processes.close();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not stop every node of the cluster", ex);
		}
	}

	private void form() {
		int perNode = SLOTS / NODES;
		for (int i = 0; i < NODES; i++) {
			int first = i * perNode;
			int last = (i == NODES - 1) ? SLOTS - 1 : first + perNode - 1;
			try (RedisTestClient node = RedisTestClient.connect(this.nodes.get(i).uri(), COMMAND_TIMEOUT)) {
				node.sync().clusterAddSlots(IntStream.rangeClosed(first, last).toArray());
				if (i > 0) {
					node.sync().clusterMeet(RedisServer.HOST, this.nodes.get(0).port());
				}
			}
		}
		for (RedisServer node : this.nodes) {
			await().atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(100)).until(() -> {
				try (RedisTestClient check = RedisTestClient.connect(node.uri(), COMMAND_TIMEOUT)) {
					return check.sync().clusterInfo().contains("cluster_state:ok");
				}
			});
		}
	}

}
