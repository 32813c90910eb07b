package dev.distlock.redis.connection;

import java.time.Duration;
import java.util.OptionalInt;

import io.lettuce.core.AbstractRedisClient;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * What distlock reads from Spring Data Redis' connection factories: whether a factory is
 * Lettuce's and its client, the time it gives Redis to answer a command, which Spring
 * Boot sets from {@code spring.data.redis.timeout} (Lettuce's command timeout, Jedis'
 * socket read timeout), and how many connections it lends at once. A driver's types are
 * touched only when the driver is on the class path, so that an application on Jedis
 * never loads Lettuce's.
 */
final class ConnectionFactories {

	/** Lettuce's own default, for a factory whose timeout cannot be read. */
	private static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(60);

	private static final ClassLoader CLASS_LOADER = ConnectionFactories.class.getClassLoader();

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient", CLASS_LOADER);

	private static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.Jedis", CLASS_LOADER);

	private ConnectionFactories() {
	}

	/**
	 * Return whether the factory is Spring Data Redis' {@link LettuceConnectionFactory}.
	 */
	static boolean isLettuce(RedisConnectionFactory connectionFactory) {
		return LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory;
	}

	/**
	 * Return the Lettuce client of a factory for which {@link #isLettuce} holds.
	 */
	static AbstractRedisClient lettuceClientOf(RedisConnectionFactory connectionFactory) {
		return ((LettuceConnectionFactory) connectionFactory).getRequiredNativeClient();
	}

	/**
	 * Return how long the factory's connections wait for a reply, or
	 * {@link #DEFAULT_COMMAND_TIMEOUT} for a factory of another kind.
	 */
	static Duration commandTimeoutOf(RedisConnectionFactory connectionFactory) {
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

}
