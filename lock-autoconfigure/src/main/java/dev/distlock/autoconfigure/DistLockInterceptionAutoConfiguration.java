package dev.distlock.autoconfigure;

import java.util.Set;

import dev.distlock.LockRegistry;
import dev.distlock.aop.DistLockAdvisor;
import dev.distlock.aop.DistLockInterception;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.transaction.ConfigurableTransactionManager;
import org.springframework.transaction.interceptor.TransactionInterceptor;

/**
 * Auto-configuration of the interception of {@code @DistributedLock},
 * {@code @DistributedConcurrencyLimit} and {@code @LeaderOnly} methods with the
 * {@link LockRegistry} bean, whichever configuration defined it: distlock's own on Spring
 * Boot's Lettuce connection, or the application's. Without one, annotated methods fail
 * the startup with a {@link MissingLockRegistryException}. With Spring's transaction
 * support, a warning says when transaction advice is ordered to run outside the locks,
 * and transactions begun inside annotated methods do not commit once their locks are
 * known lost.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
public final class DistLockInterceptionAutoConfiguration {

	/**
	 * The advisors, their interceptors and the startup check of the annotations, once
	 * there is a registry to lock with.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(LockRegistry.class)
	@EnableConfigurationProperties(DistLockProperties.class)
	@Import(AutoProxyCreatorRegistrar.class)
	static class InterceptionConfiguration {

		/**
		 * Created early by the auto-proxy creator, with the advisors, so it depends on
		 * nothing but the environment, whose {@code distlock.*} properties it binds
		 * itself; the registry is found when a method is first called or checked.
		 */
		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DistLockInterception distlockInterception(ObjectProvider<LockRegistry> registry,
				ConfigurableListableBeanFactory beanFactory, Environment environment) {
			return DistLockInterception.locking(registry, beanFactory, environment,
					ApplicationConversionService.getSharedInstance(), settings(environment));
		}

		@Bean
		@ConditionalOnMissingBean(name = "distlockAdvisor")
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DistLockAdvisor distlockAdvisor(DistLockInterception distlockInterception) {
			return distlockInterception.lockAdvisor();
		}

		@Bean
		@ConditionalOnMissingBean(name = "distlockConcurrencyLimitAdvisor")
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DistLockAdvisor distlockConcurrencyLimitAdvisor(DistLockInterception distlockInterception) {
			return distlockInterception.concurrencyLimitAdvisor();
		}

		@Bean
		@ConditionalOnMissingBean(name = "distlockLeaderOnlyAdvisor")
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DistLockAdvisor distlockLeaderOnlyAdvisor(DistLockInterception distlockInterception) {
			return distlockInterception.leaderOnlyAdvisor();
		}

		/**
		 * Checks, where Spring's transaction support is present, that transactions run
		 * inside the locks.
		 */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(TransactionInterceptor.class)
		static class TransactionOrderConfiguration {

			@Bean
			TransactionAdvisorOrderCheck distlockTransactionAdvisorOrderCheck(ListableBeanFactory beanFactory,
					DistLockInterception distlockInterception) {
				return new TransactionAdvisorOrderCheck(beanFactory, distlockInterception.lockAdvisor());
			}

		}

		/**
		 * Keeps transactions begun inside annotated methods from committing once their
		 * locks are known lost, unless {@code distlock.on-lost=log} lets the work finish.
		 */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(ConfigurableTransactionManager.class)
		@ConditionalOnProperty(name = "distlock.on-lost", havingValue = "throw", matchIfMissing = true)
		static class TransactionLossConfiguration {

			@Bean
			@ConditionalOnMissingBean
			@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
			static LockLossTransactionListenerPostProcessor distlockTransactionListenerPostProcessor() {
				return new LockLossTransactionListenerPostProcessor();
			}

		}

	}

	/**
	 * Return the settings of the interception, from the {@code distlock.*} properties
	 * bound from the environment: the interception is created early, before the
	 * properties bean.
	 */
	static DistLockInterception.Settings settings(Environment environment) {
		DistLockProperties properties = Binder.get(environment)
			.bind("distlock", DistLockProperties.class)
			.orElseGet(DistLockProperties::new);
		return new DistLockInterception.Settings(properties.getWaitTime(), properties.getOnFailure(),
				properties.getOnLost(), properties.getMaxKeysPerCall(), Set.copyOf(properties.getLeader().getNames()),
				properties.getOrder());
	}

	/**
	 * Fails the startup when there are annotated methods, which would otherwise run
	 * unlocked.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(LockRegistry.class)
	static class MissingLockRegistryConfiguration {

		@Bean
		MissingLockRegistryCheck distlockMissingRegistryCheck(ConfigurableListableBeanFactory beanFactory) {
			return new MissingLockRegistryCheck(beanFactory);
		}

	}

	/**
	 * Makes sure an auto-proxy creator applies the advisor, as
	 * {@code @EnableTransactionManagement} does; Spring Boot's AOP auto-configuration
	 * upgrades it when AspectJ is present.
	 */
	static class AutoProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar {

		@Override
		public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
			AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		}

	}

}
