package dev.distlock.autoconfigure;

import dev.distlock.aop.DistLockAdvisor;
import dev.distlock.aop.DistLockInterception;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of an application that turned distlock off with
 * {@code distlock.enabled=false}: no lock registry, and {@code @DistributedLock} and
 * {@code @DistributedConcurrencyLimit} methods run unlocked. A {@code @LeaderOnly} method
 * must not silently run on every instance: every call of it is skipped, as on a standby,
 * and the startup names those methods at WARN. The annotations are checked as when
 * distlock is enabled.
 *
 * @since 0.1.0
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "distlock.enabled", havingValue = false)
@EnableConfigurationProperties(DistLockProperties.class)
@Import(DistLockInterceptionAutoConfiguration.AutoProxyCreatorRegistrar.class)
public final class DistLockDisabledAutoConfiguration {

	/**
	 * Created early by the auto-proxy creator, as when distlock is enabled.
	 */
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DistLockInterception distlockInterception(ConfigurableListableBeanFactory beanFactory,
			Environment environment) {
		return DistLockInterception.skippingLeaderOnlyMethods(beanFactory, environment,
				DistLockInterceptionAutoConfiguration.settings(environment));
	}

	@Bean
	@ConditionalOnMissingBean(name = "distlockLeaderOnlyAdvisor")
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DistLockAdvisor distlockLeaderOnlyAdvisor(DistLockInterception distlockInterception) {
		return distlockInterception.leaderOnlyAdvisor();
	}

}
