package dev.distlock.autoconfigure;

import io.lettuce.core.AbstractRedisClient;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Lettuce's own client behind Spring Data Redis' {@link LettuceConnectionFactory}. Only
 * used when Lettuce is on the class path, so that an application on Jedis never loads
 * Lettuce's types.
 */
final class LettuceClients {

	private LettuceClients() {
	}

	static boolean isLettuce(RedisConnectionFactory connectionFactory) {
		return connectionFactory instanceof LettuceConnectionFactory;
	}

	static AbstractRedisClient nativeClientOf(RedisConnectionFactory connectionFactory) {
		return ((LettuceConnectionFactory) connectionFactory).getRequiredNativeClient();
	}

}
