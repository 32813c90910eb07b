package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.connection.LockConnections;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

/**
 * The Lettuce clients of the nodes of {@code distlock.redlock.nodes}, one per node, each
 * waiting for its node at most the command timeout, all on one set of client resources:
 * the nodes' connections share Lettuce's event loops rather than each client starting its
 * own, so that a quorum's replies wake fewer threads.
 */
final class RedlockNodes implements AutoCloseable {

	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(2);

	private final ClientResources resources = DefaultClientResources.create();

	private final List<RedisClient> clients;

	/**
	 * Create the clients of the given nodes.
	 * @param uris the nodes' URIs, as {@link RedlockNodeUri} checks them
	 * @param commandTimeout how long a node may take to answer a command
	 */
	RedlockNodes(List<String> uris, Duration commandTimeout) {
		this.clients = uris.stream().map((uri) -> {
			RedisURI redisUri = RedisURI.create(uri);
			redisUri.setTimeout(commandTimeout);
			return RedisClient.create(this.resources, redisUri);
		}).toList();
	}

	/**
	 * Return one new connection per node, in the order of the URIs.
	 * @return the connections, closed by the registry built on them
	 */
	List<LockConnection> connections() {
		return this.clients.stream().map(LockConnections::lettuce).toList();
	}

	/**
	 * Shut the clients down, then their resources.
	 */
	@Override
	public void close() {
		this.clients.forEach((client) -> client.shutdown(Duration.ZERO, SHUTDOWN_TIMEOUT));
		this.resources.shutdown(0, SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
	}

}
