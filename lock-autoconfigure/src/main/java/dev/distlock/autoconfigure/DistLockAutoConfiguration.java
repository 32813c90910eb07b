package dev.distlock.autoconfigure;

import java.util.function.Consumer;

import dev.distlock.LockEvent;
import dev.distlock.LockObserver;
import dev.distlock.LockRegistry;
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
import org.springframework.context.SmartLifecycle;
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
				properties.getRedis().getReplicasToAck(), properties.getRedis().getReplicaAckTimeout(),
				properties.getLockDelay(), properties.getFencing().getRetention());
		return new LifecycleLockRegistry(connectionFactory, settings, eventPublisher::publishEvent,
				observer.getIfUnique(() -> LockObserver.NONE));
	}

	/**
	 * The {@link RedisLockRegistry} of an application context, on the client of Spring
	 * Boot's {@link LettuceConnectionFactory}. The factory is a {@link SmartLifecycle}
	 * whose stop shuts its client down, closing every connection opened from it, before
	 * any bean is destroyed: so the registry closes its connections when it is stopped,
	 * in the factory's phase and, as a bean that depends on the factory, before it.
	 */
	static final class LifecycleLockRegistry extends RedisLockRegistry implements SmartLifecycle {

		private final int phase;

		private volatile boolean running;

		LifecycleLockRegistry(LettuceConnectionFactory connectionFactory, RedisLockSettings settings,
				Consumer<? super LockEvent> eventListener, LockObserver observer) {
			super(connectionFactory.getRequiredNativeClient(), settings, eventListener, observer);
			this.phase = connectionFactory.getPhase();
		}

		@Override
		public void start() {
			this.running = true;
		}

		/**
		 * Close the registry: locks can no longer be taken once the connection factory
		 * stops.
		 */
		@Override
		public void stop() {
			this.running = false;
			close();
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return this.phase;
		}

	}

}
