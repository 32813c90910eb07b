package dev.distlock.testsupport;

import java.time.Duration;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A Lettuce connection for checking a {@link RedisServer} from tests, with a short
 * command timeout and a shutdown that does not wait for Netty's quiet period.
 */
public final class RedisTestClient implements AutoCloseable {

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private RedisTestClient(RedisClient client, StatefulRedisConnection<String, String> connection) {
		this.client = client;
		this.connection = connection;
	}

	/**
	 * Connects to the server at {@code uri}.
	 * @param uri a Redis URI such as {@link RedisServer#uri()}
	 * @param commandTimeout how long a synchronous command may take
	 * @return the connected client
	 */
	public static RedisTestClient connect(String uri, Duration commandTimeout) {
		RedisClient client = RedisClient.create(uri);
		try {
			StatefulRedisConnection<String, String> connection = client.connect();
			connection.setTimeout(commandTimeout);
			return new RedisTestClient(client, connection);
		}
		catch (RuntimeException ex) {
			LettuceClients.shutdown(client);
			throw ex;
		}
	}

	/**
	 * Returns the synchronous commands of the connection.
	 * @return the commands
	 */
	public RedisCommands<String, String> sync() {
		return this.connection.sync();
	}

	/**
	 * Closes the connection and shuts the client down at once.
	 */
	@Override
	public void close() {
		this.connection.close();
		LettuceClients.shutdown(this.client);
	}

}
