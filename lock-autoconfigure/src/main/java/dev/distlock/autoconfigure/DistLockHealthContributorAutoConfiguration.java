package dev.distlock.autoconfigure;

import dev.distlock.LockIntrospector;
import dev.distlock.actuate.DistLockHealthIndicator;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link DistLockHealthIndicator}, contributed to the health
 * endpoint as {@code distlock} and disabled with
 * {@code management.health.distlock.enabled}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(LockIntrospector.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@ConditionalOnEnabledHealthIndicator("distlock")
public final class DistLockHealthContributorAutoConfiguration {

	/**
	 * Named so that the health contributor is {@code distlock}, like the endpoint and the
	 * {@code management.health.distlock.enabled} property.
	 */
	@Bean
	@ConditionalOnMissingBean(value = DistLockHealthIndicator.class, name = "distlockHealthIndicator")
	DistLockHealthIndicator distlockHealthIndicator(LockIntrospector registry) {
		return new DistLockHealthIndicator(registry);
	}

}
