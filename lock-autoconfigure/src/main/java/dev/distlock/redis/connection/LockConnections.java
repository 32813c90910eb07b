package dev.distlock.redis.connection;

import java.time.Duration;

import io.lettuce.core.AbstractRedisClient;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * Makes the {@link LockConnection} a {@code RedisLockRegistry} sends its commands on:
 * Lettuce's own client, or a Spring Data Redis connection factory. A
 * {@code LettuceConnectionFactory} is always used through its own Lettuce client, which
 * is faster than Spring Data Redis and keeps a reply that an interrupt would make Spring
 * Data Redis' Lettuce connection drop; every other factory (Jedis', or one that wraps
 * another) through Spring Data Redis.
 *
 * @since 0.1.0
 */
public final class LockConnections {

	private LockConnections() {
	}

	/**
	 * Return a connection on the given Spring Data Redis connection factory: any driver
	 * (Lettuce, Jedis) and any deployment (standalone, Sentinel, Cluster). On Spring Data
	 * Redis, commands wait for Redis within the factory's own timeout.
	 * @param connectionFactory the factory, owned by the caller; a
	 * {@code LettuceConnectionFactory} must be started
	 * @return the connection
	 */
	public static LockConnection of(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "'connectionFactory' must not be null");
		if (ConnectionFactories.isLettuce(connectionFactory)) {
			return lettuce(ConnectionFactories.lettuceClientOf(connectionFactory));
		}
		return new SpringDataLockConnection(connectionFactory);
	}

	/**
	 * Return a connection on the given Lettuce client.
	 * @param client a {@code RedisClient} or {@code RedisClusterClient}, owned by the
	 * caller
	 * @return the connection
	 */
	public static LockConnection lettuce(AbstractRedisClient client) {
		Assert.notNull(client, "'client' must not be null");
		return new LettuceLockConnection(client);
	}

	/**
	 * Return how long the factory's connections wait for Redis to answer a command, as
	 * Spring Boot sets it from {@code spring.data.redis.timeout}: Lettuce's command
	 * timeout, Jedis' socket read timeout, or 60 seconds (Lettuce's own default) for a
	 * factory of another kind.
	 * @param connectionFactory the factory
	 * @return the timeout
	 */
	public static Duration commandTimeoutOf(RedisConnectionFactory connectionFactory) {
		return ConnectionFactories.commandTimeoutOf(connectionFactory);
	}

}
