package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TcpProxy;

import static org.awaitility.Awaitility.await;

/**
 * Independent {@code redis-server} processes for a Redlock quorum, each started empty on
 * a free port, with {@link TcpProxy proxies} in front of them for clients whose network a
 * test cuts or stalls; all stopped on {@link #close()}.
 */
public final class QuorumNodes implements AutoCloseable {

	/**
	 * How far ahead of its clock a client proposes the fencing token that the nodes issue
	 * while their clocks and last tokens are behind it.
	 */
	public static final Duration TOKEN_LEAD = QuorumAttempts.TOKEN_FLOOR_LEAD;

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final RedlockSettings DEFAULT_DRIFT = new RedlockSettings(RedlockSettings.DEFAULT_DRIFT_FACTOR);

	private final Closer closer = new Closer();

	private final List<RedisServer> servers;

	/**
	 * Start the given number of nodes.
	 * @param count how many
	 */
	public QuorumNodes(int count) {
		this.servers = IntStream.range(0, count).mapToObj((i) -> this.closer.add(RedisServer.start())).toList();
	}

	/**
	 * Return the node at the given position.
	 * @param index the position
	 * @return the node
	 */
	public RedisServer node(int index) {
		return this.servers.get(index);
	}

	/**
	 * Return how long a node must have been up to grant a hold whose key lives the given
	 * time: that time plus its drift allowance at the default drift factor, the life of
	 * the hold's key on the node.
	 * @param keyLife how long the hold's key lives, the lease plus any lock delay
	 * @return the minimum uptime
	 */
	public static Duration minUptime(Duration keyLife) {
		return keyLife.plusMillis(DEFAULT_DRIFT.driftMillis(keyLife.toMillis()));
	}

	/**
	 * Return the URIs of the nodes, in order.
	 * @return the URIs
	 */
	public List<String> uris() {
		return this.servers.stream().map(RedisServer::uri).toList();
	}

	/**
	 * Start one proxy in front of every node, in order, for one client.
	 * @return the proxies
	 */
	public List<TcpProxy> proxies() {
		List<TcpProxy> proxies = new ArrayList<>();
		for (RedisServer server : this.servers) {
			proxies.add(this.closer.add(TcpProxy.start(server.port())));
		}
		return proxies;
	}

	/**
	 * Wait until every running node has been up for at least the given time, counted as
	 * the nodes count it (whole seconds, less one): only then does it count towards a
	 * majority for a lease that long.
	 * @param uptime how long
	 */
	public void awaitUp(Duration uptime) {
		for (RedisServer server : this.servers) {
			if (server.isRunning()) {
				await().atMost(uptime.plusSeconds(6))
					.pollInterval(Duration.ofMillis(100))
					.until(() -> uptimeMillis(server) >= uptime.toMillis());
			}
		}
	}

	private static long uptimeMillis(RedisServer server) {
		try (RedisTestClient client = RedisTestClient.connect(server.uri(), COMMAND_TIMEOUT)) {
			String info = client.sync().info("server");
			String uptime = info.lines()
				.filter((line) -> line.startsWith("uptime_in_seconds:"))
				.findFirst()
				.orElseThrow();
			return (Long.parseLong(uptime.substring(uptime.indexOf(':') + 1).trim()) - 1) * 1000;
		}
	}

	@Override
	public void close() throws Exception {
		this.closer.close();
	}

	/**
	 * Return the URIs of the given proxies, in order.
	 * @param proxies the proxies
	 * @return their URIs
	 */
	public static List<String> urisOf(List<TcpProxy> proxies) {
		return proxies.stream().map(TcpProxy::uri).toList();
	}

}
