package dev.distlock.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.distlock.LockEvent;
import dev.distlock.LockObserver;
import dev.distlock.LockRegistry;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.RedlockSettings;
import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.connection.LockConnections;

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
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of distlock's {@link LockRegistry} on the
 * {@link RedisConnectionFactory} that Spring Boot configured from
 * {@code spring.data.redis.*} (or the application's own: the one annotated with
 * {@link DistLockConnectionFactory}, otherwise the only or the {@code @Primary} one; all
 * of them are the registry's dependencies, so that it stops before they close their
 * connections): through Lettuce's own client when the factory is Boot's Lettuce one,
 * through Spring Data Redis otherwise (Jedis, a wrapping factory), as
 * {@link LockConnections#of} makes the connection. The interception of
 * {@code @DistributedLock} methods is configured by
 * {@link DistLockInterceptionAutoConfiguration}, with this registry or the application's
 * own. The registry tells every {@link LockObserver} bean what it does, in their order:
 * distlock's observation observer and any of the application's, so that an observer of
 * the application's own turns no meter or span off.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistLockProperties.class)
public final class DistLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	RedisLockRegistry distlockRegistry(@DistLockConnectionFactory ObjectProvider<RedisConnectionFactory> lockFactory,
			ObjectProvider<RedisConnectionFactory> uniqueFactory, Map<String, RedisConnectionFactory> factories,
			DistLockProperties properties, ApplicationEventPublisher eventPublisher,
			ObjectProvider<LockObserver> observers) {
		Assert.state(properties.getStore() == DistLockProperties.Store.REDIS,
				"distlock.store=in-memory keeps locks in the JVM, which needs dev.distlock:distlock-test on the "
						+ "classpath (a test-scoped dependency); remove the property to lock on Redis");
		RedisConnectionFactory connectionFactory = lockFactory.getIfAvailable(uniqueFactory::getIfUnique);
		if (connectionFactory == null) {
			throw new NoUniqueLockConnectionFactoryException(List.copyOf(factories.keySet()));
		}
		RedisLockSettings settings = new RedisLockSettings(properties.getKeyPrefix(), properties.getLeaseTime(),
				LockConnections.commandTimeoutOf(connectionFactory), properties.getRedis().getReplicasToAck(),
				properties.getRedis().getReplicaAckTimeout(), properties.getLockDelay(),
				properties.getFencing().getRetention());
		Consumer<? super LockEvent> eventListener = eventPublisher::publishEvent;
		LockObserver lockObserver = CompositeLockObserver.of(observers.orderedStream().toList());
		int phase = (connectionFactory instanceof SmartLifecycle lifecycle) ? lifecycle.getPhase()
				: SmartLifecycle.DEFAULT_PHASE;
		DistLockProperties.Redlock redlock = properties.getRedlock();
		if (!redlock.getNodes().isEmpty()) {
			return redlockRegistry(redlock, settings, eventListener, lockObserver, phase);
		}
		return new LifecycleLockRegistry(LockConnections.of(connectionFactory), settings, eventListener, lockObserver,
				phase);
	}

	/**
	 * Return a registry on the Redlock nodes, on Lettuce clients of its own, shut down
	 * when it closes.
	 */
	private static RedisLockRegistry redlockRegistry(DistLockProperties.Redlock redlock, RedisLockSettings settings,
			Consumer<? super LockEvent> eventListener, LockObserver lockObserver, int phase) {
		Assert.state(
				ClassUtils.isPresent("io.lettuce.core.RedisClient", DistLockAutoConfiguration.class.getClassLoader()),
				"distlock.redlock.nodes connects to its nodes with Lettuce: add io.lettuce:lettuce-core to the classpath");
		Assert.state(settings.replicasToAck() == 0, "distlock.redlock.nodes locks on independent primaries and waits"
				+ " for no replicas: remove distlock.redis.replicas-to-ack");
		RedlockNodes nodes = new RedlockNodes(redlock.getNodes(), settings.commandTimeout());
		return new LifecycleLockRegistry(nodes, new RedlockSettings(redlock.getDriftFactor()), settings, eventListener,
				lockObserver, phase);
	}

	/**
	 * The {@link RedisLockRegistry} of an application context. Spring Data Redis'
	 * connection factories are {@link SmartLifecycle}s whose stop closes every connection
	 * opened from them, before any bean is destroyed: so the registry closes its
	 * connections when it is stopped, in the factory's phase and, as a bean that depends
	 * on the factory, before it.
	 */
	static final class LifecycleLockRegistry extends RedisLockRegistry implements SmartLifecycle {

		private final int phase;

		private final AutoCloseable clients;

		private volatile boolean running;

		LifecycleLockRegistry(LockConnection connection, RedisLockSettings settings,
				Consumer<? super LockEvent> eventListener, LockObserver observer, int phase) {
			super(connection, settings, eventListener, observer);
			this.phase = phase;
			this.clients = () -> {
			};
		}

		LifecycleLockRegistry(RedlockNodes nodes, RedlockSettings redlock, RedisLockSettings settings,
				Consumer<? super LockEvent> eventListener, LockObserver observer, int phase) {
			super(nodes.connections(), redlock, settings, eventListener, observer);
			this.phase = phase;
			this.clients = nodes;
		}

		/**
		 * Close the registry, then the clients it was made on, if it made its own.
		 */
		@Override
		public void close() {
			try {
				super.close();
			}
			finally {
				try {
					this.clients.close();
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			}
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
