package dev.distlock.autoconfigure;

import dev.distlock.LockObserver;
import dev.distlock.LockRegistry;
import dev.distlock.actuate.MicrometerLockObserver;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of distlock's Micrometer metrics: a {@link MicrometerLockObserver}
 * that the lock registry reports to.
 *
 * <p>
 * The registry looks its {@link LockObserver} up when it is created, after every bean
 * definition is registered, so this configuration can come after
 * {@link DistLockAutoConfiguration} and check that the registry is there.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
		DistLockAutoConfiguration.class })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, LockRegistry.class })
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
public final class DistLockMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockObserver.class)
	MicrometerLockObserver distlockObserver(MeterRegistry meterRegistry) {
		return new MicrometerLockObserver(meterRegistry);
	}

}
