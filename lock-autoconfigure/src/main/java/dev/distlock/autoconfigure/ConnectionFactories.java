package dev.distlock.autoconfigure;

import java.time.Duration;

import io.lettuce.core.AbstractRedisClient;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * What distlock reads from Spring Data Redis' connection factories: whether a factory is
 * Lettuce's and its client, and the time it gives Redis to answer a command, which Spring
 * Boot sets from {@code spring.data.redis.timeout} (Lettuce's command timeout, Jedis'
 * socket read timeout). A driver's types are touched only when the driver is on the class
 * path, so that an application on Jedis never loads Lettuce's.
 */
final class ConnectionFactories {

	/** Lettuce's own default, for a factory whose timeout cannot be read. */
	static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(60);

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

}
