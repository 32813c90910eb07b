package dev.distlock.autoconfigure;

import dev.distlock.fencing.RedisFence;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Auto-configuration of distlock's {@link RedisFence} on the application's
 * {@link StringRedisTemplate}, with distlock's key prefix ({@code distlock.key-prefix}).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass(StringRedisTemplate.class)
@ConditionalOnSingleCandidate(StringRedisTemplate.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistLockProperties.class)
public final class DistLockRedisFenceAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(RedisFence.class)
	RedisFence distlockRedisFence(StringRedisTemplate redis, DistLockProperties properties) {
		return new RedisFence(redis, properties.getKeyPrefix());
	}

}
