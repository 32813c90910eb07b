package dev.distlock.docs;

import java.time.Duration;

import dev.distlock.autoconfigure.DistLockConnectionFactory;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The user guide's dedicated Redis for locks, as written there; its hosts exist nowhere,
 * so it is compiled only: {@code DistLockConnectionFactoryTests} runs the same recipe on
 * two {@code redis-server}s.
 */
// tag::dedicated-redis[]
@Configuration(proxyBeanMethods = false)
class RedisConfiguration {

	@Bean
	@Primary
	LettuceConnectionFactory redisConnectionFactory() {
		return new LettuceConnectionFactory(new RedisStandaloneConfiguration("cache.internal", 6379));
	}

	@Bean
	@DistLockConnectionFactory
	LettuceConnectionFactory lockRedisConnectionFactory() {
		return new LettuceConnectionFactory(new RedisStandaloneConfiguration("locks.internal", 6379),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
	}

}
// end::dedicated-redis[]
