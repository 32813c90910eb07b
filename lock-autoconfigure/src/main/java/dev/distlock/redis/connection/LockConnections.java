package dev.distlock.redis.connection;

import java.time.Duration;
import java.util.OptionalInt;

import io.lettuce.core.AbstractRedisClient;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Makes the {@link LockConnection} a {@code RedisLockRegistry} sends its commands on:
 * Lettuce's own client, or a Spring Data Redis connection factory. A
 * {@code LettuceConnectionFactory} is always used through its own Lettuce client, which
 * is faster than Spring Data Redis and keeps a reply that an interrupt would make Spring
 * Data Redis' Lettuce connection drop; every other factory (Jedis', or one that wraps
 * another) through Spring Data Redis. A driver's types are touched only when the driver
 * is on the class path, so that an application on Jedis never loads Lettuce's.
 *
 * @since 0.1.0
 */
public final class LockConnections {

	/** Lettuce's own default, for a factory whose timeout cannot be read. */
	private static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(60);

	private static final ClassLoader CLASS_LOADER = LockConnections.class.getClassLoader();

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient", CLASS_LOADER);

	private static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.Jedis", CLASS_LOADER);

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
		if (isLettuce(connectionFactory)) {
			return lettuce(((LettuceConnectionFactory) connectionFactory).getRequiredNativeClient());
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
		if (isLettuce(connectionFactory)) {
			return ((LettuceConnectionFactory) connectionFactory).getClientConfiguration().getCommandTimeout();
		}
		if (JEDIS_PRESENT && connectionFactory instanceof JedisConnectionFactory jedis) {
			return jedis.getClientConfiguration().getReadTimeout();
		}
		return DEFAULT_COMMAND_TIMEOUT;
	}

	/**
	 * Return the most connections the factory lends at once, empty when it lends from no
	 * bounded pool (a Jedis factory without a pool or with an unbounded one, or a factory
	 * of another driver). Only Jedis' factory lends each call a connection of its own
	 * from a bounded pool (Commons Pool's).
	 */
	static OptionalInt maxTotalOf(RedisConnectionFactory connectionFactory) {
		if (JEDIS_PRESENT && connectionFactory instanceof JedisConnectionFactory jedis && jedis.getUsePool()) {
			GenericObjectPoolConfig<?> pool = jedis.getPoolConfig();
			if (pool != null && pool.getMaxTotal() > 0) {
				return OptionalInt.of(pool.getMaxTotal());
			}
		}
		return OptionalInt.empty();
	}

	private static boolean isLettuce(RedisConnectionFactory connectionFactory) {
		return LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory;
	}

}
