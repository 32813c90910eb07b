package dev.distlock.autoconfigure;

import dev.distlock.LockObserver;
import dev.distlock.LockRegistry;
import dev.distlock.observation.LockHoldObservationConvention;
import dev.distlock.observation.LockMeterObservationHandler;
import dev.distlock.observation.LockWaitObservationConvention;
import dev.distlock.observation.ObservationLockObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Auto-configuration of distlock's Micrometer Observations and metrics: an
 * {@link ObservationLockObserver} that the lock registry reports to, on the application's
 * {@link ObservationRegistry}, and a {@link LockMeterObservationHandler} that records
 * distlock's meters from the observations when there is a {@link MeterRegistry}. Spring
 * Boot's observation auto-configuration registers that handler with the registry before
 * its default one. Without an {@code ObservationRegistry} bean, a {@code MeterRegistry}
 * still gets distlock's meters, through an observation registry of the observer's own.
 *
 * <p>
 * With a {@link MeterRegistry}, the gauge {@code distlock.leader} tells, per leadership
 * name, whether this instance leads it; with {@code distlock.redlock.nodes}, the counter
 * {@code distlock.redlock.replies} counts each node's replies to attempts to take a lock,
 * by outcome ({@link RedlockNodeMeters}).
 *
 * <p>
 * The observations follow a {@link LockWaitObservationConvention} and a
 * {@link LockHoldObservationConvention} bean when the application defines one, and the
 * default conventions otherwise.
 *
 * <p>
 * The registry tells this observer and every other {@link LockObserver} bean, such as the
 * application's own, so an application's observer leaves the observations on; an
 * {@code ObservationLockObserver} bean of the application's replaces this one. The
 * registry looks its observers up when it is created, after every bean definition is
 * registered, so this configuration can come after {@link DistLockAutoConfiguration} and
 * check that the registry is there. Spring Boot's metrics and observation
 * auto-configurations are named by their class names, since an application may have
 * neither: a class named in {@code after} that is missing makes reading the annotation
 * fail.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(LockRegistry.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
public final class DistLockMetricsAutoConfiguration {

	private static ObservationLockObserver observer(ObservationRegistry observationRegistry,
			ObjectProvider<LockWaitObservationConvention> waitConvention,
			ObjectProvider<LockHoldObservationConvention> holdConvention) {
		return new ObservationLockObserver(observationRegistry, waitConvention.getIfAvailable(),
				holdConvention.getIfAvailable());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(ObservationRegistry.class)
	static class ObservationRegistryConfiguration {

		@Bean
		@ConditionalOnMissingBean(ObservationLockObserver.class)
		ObservationLockObserver distlockObserver(ObservationRegistry observationRegistry,
				ObjectProvider<LockWaitObservationConvention> waitConvention,
				ObjectProvider<LockHoldObservationConvention> holdConvention) {
			return observer(observationRegistry, waitConvention, holdConvention);
		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(MeterRegistry.class)
		@ConditionalOnBean(MeterRegistry.class)
		static class MeterObservationHandlerConfiguration {

			@Bean
			@ConditionalOnMissingBean
			@Order(Ordered.HIGHEST_PRECEDENCE)
			LockMeterObservationHandler distlockMeterObservationHandler(MeterRegistry meterRegistry) {
				return new LockMeterObservationHandler(meterRegistry);
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnMissingBean(ObservationRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static class MeterRegistryConfiguration {

		@Bean
		@ConditionalOnMissingBean(ObservationLockObserver.class)
		ObservationLockObserver distlockObserver(MeterRegistry meterRegistry,
				ObjectProvider<LockWaitObservationConvention> waitConvention,
				ObjectProvider<LockHoldObservationConvention> holdConvention) {
			ObservationRegistry observationRegistry = ObservationRegistry.create();
			observationRegistry.observationConfig().observationHandler(new LockMeterObservationHandler(meterRegistry));
			return observer(observationRegistry, waitConvention, holdConvention);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	@EnableConfigurationProperties(DistLockProperties.class)
	static class PlainMeterConfiguration {

		@Bean
		LeaderGauges distlockLeaderGauges(MeterRegistry meterRegistry, DistLockProperties properties) {
			return new LeaderGauges(meterRegistry, properties.getLeader().getNames());
		}

		@Bean
		@Conditional(OnRedlockNodesCondition.class)
		RedlockNodeMeters distlockRedlockNodeMeters(MeterRegistry meterRegistry, DistLockProperties properties) {
			return new RedlockNodeMeters(meterRegistry, properties.getRedlock().getNodes());
		}

	}

}
