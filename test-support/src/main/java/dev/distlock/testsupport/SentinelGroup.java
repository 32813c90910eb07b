package dev.distlock.testsupport;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;

import static org.awaitility.Awaitility.await;

/**
 * A Redis Sentinel deployment on loopback ports: a primary, one replica and three
 * Sentinels (quorum 2) monitoring them under one master name, for tests that connect the
 * way a Sentinel user does and that fail the primary over. <pre class="code">
 * try (SentinelGroup group = SentinelGroup.start()) {
 *     RedisClient client = RedisClient.create(group.uri());   // redis-sentinel://...#mymaster
 *     group.failOver();
 * }
 * </pre>
 */
public final class SentinelGroup implements AutoCloseable {

	/** The master name the Sentinels monitor. */
	public static final String MASTER_NAME = "mymaster";

	private static final int SENTINELS = 3;

	private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private final Closer processes = new Closer();

	private final List<RedisServer> servers = new ArrayList<>();

	private final List<RedisServer> sentinels = new ArrayList<>();

	private SentinelGroup() {
	}

	/**
	 * Starts the primary, its replica and the Sentinels, and waits until every Sentinel
	 * knows the replica and the other Sentinels.
	 * @return the running group
	 */
	public static SentinelGroup start() {
		SentinelGroup group = new SentinelGroup();
		try {
			RedisServer primary = group.add(RedisServer.start());
			group.add(RedisServer.start("--replicaof", primary.host(), String.valueOf(primary.port())));
			for (int i = 0; i < SENTINELS; i++) {
				group.sentinels.add(group.processes.add(RedisServer.startSentinel(MASTER_NAME, primary)));
			}
			group.awaitReady();
			return group;
		}
		catch (RuntimeException ex) {
			group.close();
			throw ex;
		}
	}

	/**
	 * Returns the URI a Lettuce client connects with: every Sentinel and the master name.
	 * @return {@code redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3#mymaster}
	 */
	public String uri() {
		return "redis-sentinel://" + nodes() + "#" + MASTER_NAME;
	}

	/**
	 * Returns the Sentinels as Spring Boot's {@code spring.data.redis.sentinel.nodes}
	 * property writes them.
	 * @return {@code 127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3}
	 */
	public String nodes() {
		return this.sentinels.stream()
			.map((sentinel) -> sentinel.host() + ":" + sentinel.port())
			.collect(Collectors.joining(","));
	}

	/**
	 * Returns the server the Sentinels currently name as the primary.
	 * @return the primary
	 */
	public RedisServer primary() {
		int port = primaryPort();
		return this.servers.stream()
			.filter((server) -> server.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No server of the group listens on port " + port));
	}

	/**
	 * Fails the primary over to its replica with {@code SENTINEL FAILOVER} and waits
	 * until the Sentinels name the replica as the primary.
	 * @return the new primary
	 */
	public RedisServer failOver() {
		int before = primaryPort();
		sentinelCommand((sentinel) -> sentinel.failover(MASTER_NAME));
		await().atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(100)).until(() -> primaryPort() != before);
		return primary();
	}

	/**
	 * Stops every process of the group.
	 */
	@Override
	public void close() {
		try {
			this.processes.close();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not stop every process of the Sentinel group", ex);
		}
	}

	private RedisServer add(RedisServer server) {
		this.servers.add(this.processes.add(server));
		return server;
	}

	private void awaitReady() {
		await().atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(100)).until(this::everySentinelKnowsTheGroup);
	}

	private boolean everySentinelKnowsTheGroup() {
		for (int i = 0; i < this.sentinels.size(); i++) {
			try (RedisTestClient sentinel = RedisTestClient.connect(sentinelUri(i), COMMAND_TIMEOUT)) {
				String info = sentinel.sync().info("sentinel");
				if (!info.contains("status=ok,address=" + RedisServer.HOST) || !info.contains("slaves=1,")
						|| !info.contains("sentinels=" + SENTINELS)) {
					return false;
				}
			}
		}
		return true;
	}

	private int primaryPort() {
		SocketAddress address = sentinelCommand((sentinel) -> sentinel.getMasterAddrByName(MASTER_NAME));
		return ((InetSocketAddress) address).getPort();
	}

	/**
	 * Send a Sentinel command to the first Sentinel.
	 */
	private <T> T sentinelCommand(Function<RedisSentinelCommands<String, String>, T> command) {
		RedisClient client = RedisClient.create(RedisURI.create(sentinelUri(0)));
		try (StatefulRedisSentinelConnection<String, String> connection = client.connectSentinel()) {
			connection.setTimeout(COMMAND_TIMEOUT);
			return command.apply(connection.sync());
		}
		finally {
			LettuceClients.shutdown(client, COMMAND_TIMEOUT);
		}
	}

	private String sentinelUri(int index) {
		return this.sentinels.get(index).uri();
	}

}
