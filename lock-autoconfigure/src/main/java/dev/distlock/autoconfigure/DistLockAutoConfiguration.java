package dev.distlock.autoconfigure;

import dev.distlock.LockRegistry;
import dev.distlock.LockObserver;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisLockSettings;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Auto-configuration of distlock's {@link LockRegistry} on the Lettuce connection that
 * Spring Boot configured from {@code spring.data.redis.*}. The interception of
 * {@code @DistributedLock} methods is configured by
 * {@link DistLockInterceptionAutoConfiguration}, with this registry or the application's
 * own.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass(LettuceConnectionFactory.class)
@ConditionalOnBean(LettuceConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistLockProperties.class)
public final class DistLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	RedisLockRegistry distlockRegistry(LettuceConnectionFactory connectionFactory, DistLockProperties properties,
			ApplicationEventPublisher eventPublisher, ObjectProvider<LockObserver> observer) {
		RedisLockSettings settings = new RedisLockSettings(properties.getKeyPrefix(), properties.getLeaseTime(),
				connectionFactory.getClientConfiguration().getCommandTimeout(),
				properties.getRedis().getReplicasToAck(), properties.getRedis().getReplicaAckTimeout());
		return new LifecycleLockRegistry(connectionFactory, settings, eventPublisher::publishEvent,
				observer.getIfUnique(() -> LockObserver.NONE));
	}

}
