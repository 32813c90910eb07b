package dev.distlock.autoconfigure;

import java.time.Duration;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The time a connection factory gives Redis to answer a command, which Spring Boot sets
 * from {@code spring.data.redis.timeout}: Lettuce's command timeout, Jedis' socket read
 * timeout.
 */
final class CommandTimeouts {

	/** Lettuce's own default, for a factory whose timeout cannot be read. */
	static final Duration DEFAULT = Duration.ofSeconds(60);

	private static final ClassLoader CLASS_LOADER = CommandTimeouts.class.getClassLoader();

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient", CLASS_LOADER);

	private static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.Jedis", CLASS_LOADER);

	private CommandTimeouts() {
	}

	static Duration of(RedisConnectionFactory connectionFactory) {
		if (LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce) {
			return lettuce.getClientConfiguration().getCommandTimeout();
		}
		if (JEDIS_PRESENT && connectionFactory instanceof JedisConnectionFactory jedis) {
			return jedis.getClientConfiguration().getReadTimeout();
		}
		return DEFAULT;
	}

}
