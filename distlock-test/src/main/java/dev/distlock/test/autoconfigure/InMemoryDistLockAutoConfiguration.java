package dev.distlock.test.autoconfigure;

import dev.distlock.LockObserver;
import dev.distlock.LockRegistry;
import dev.distlock.autoconfigure.CompositeLockObserver;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockProperties;
import dev.distlock.test.InMemoryLockRegistry;
import dev.distlock.test.InMemoryLockStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Auto-configuration of an {@link InMemoryLockRegistry} when {@code distlock.store} is
 * {@code in-memory}: the application's locks are kept in the JVM, with the lease time and
 * lock delay of {@code distlock.*}, its {@link dev.distlock.LockEvent}s published as
 * application events and told to every {@link LockObserver} bean, like the Redis
 * registry's. It comes before {@link DistLockAutoConfiguration}, whose Redis registry
 * then backs off; interception, leaderships, metrics and the Actuator endpoint work on it
 * unchanged.
 *
 * @since 0.1.0
 */
@AutoConfiguration(before = DistLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@Conditional(InMemoryDistLockAutoConfiguration.InMemoryStoreCondition.class)
@EnableConfigurationProperties(DistLockProperties.class)
public final class InMemoryDistLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	InMemoryLockStore distlockInMemoryStore() {
		return new InMemoryLockStore();
	}

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	InMemoryLockRegistry distlockRegistry(InMemoryLockStore store, DistLockProperties properties,
			ApplicationEventPublisher eventPublisher, ObjectProvider<LockObserver> observers) {
		return new InMemoryLockRegistry(store, properties.getLeaseTime(), properties.getLockDelay(),
				eventPublisher::publishEvent, CompositeLockObserver.of(observers.orderedStream().toList()));
	}

	/**
	 * Matches when {@code distlock.store} binds to
	 * {@link DistLockProperties.Store#IN_MEMORY}, however it is spelled.
	 */
	static final class InMemoryStoreCondition extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			DistLockProperties.Store store = Binder.get(context.getEnvironment())
				.bind("distlock.store", DistLockProperties.Store.class)
				.orElse(DistLockProperties.Store.REDIS);
			return (store == DistLockProperties.Store.IN_MEMORY) ? ConditionOutcome.match("distlock.store is in-memory")
					: ConditionOutcome.noMatch("distlock.store is " + store);
		}

	}

}
