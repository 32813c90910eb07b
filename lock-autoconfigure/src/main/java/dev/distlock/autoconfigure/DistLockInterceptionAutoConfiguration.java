package dev.distlock.autoconfigure;

import java.util.Set;

import dev.distlock.LockRegistry;
import dev.distlock.aop.DistributedConcurrencyLimitAdvisor;
import dev.distlock.aop.DistributedConcurrencyLimitInterceptor;
import dev.distlock.aop.DistributedLockAdvisor;
import dev.distlock.aop.DistributedLockInterceptor;
import dev.distlock.aop.LeaderOnlyAdvisor;
import dev.distlock.aop.LeaderOnlyInterceptor;
import dev.distlock.aop.LeaderOnlySpecResolver;
import dev.distlock.aop.LeaderOnlyValidator;
import dev.distlock.aop.LockAnnotationValidator;
import dev.distlock.aop.LockNames;
import dev.distlock.aop.LockSpecResolver;
import dev.distlock.aop.LockSpecResolver.LockDefaults;
import dev.distlock.aop.LostLockPolicy;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
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
	 * The advisor, its interceptor and the startup check of the annotations, once there
	 * is a registry to lock with.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(LockRegistry.class)
	@EnableConfigurationProperties(DistLockProperties.class)
	@Import(AutoProxyCreatorRegistrar.class)
	static class InterceptionConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LockSpecResolver distlockSpecResolver(Environment environment, LockRegistry registry,
				DistLockProperties properties) {
			return new LockSpecResolver(environment, ApplicationConversionService.getSharedInstance(), registry,
					new LockDefaults(properties.getWaitTime(), properties.getOnFailure()));
		}

		@Bean
		@ConditionalOnMissingBean
		DistributedLockInterceptor distlockInterceptor(LockRegistry registry, LockSpecResolver distlockSpecResolver,
				BeanFactory beanFactory, DistLockProperties properties) {
			return new DistributedLockInterceptor(registry, distlockSpecResolver,
					new LockNames(beanFactory, properties.getMaxKeysPerCall()),
					new LostLockPolicy(properties.getOnLost()));
		}

		@Bean
		@ConditionalOnMissingBean
		DistributedConcurrencyLimitInterceptor distlockConcurrencyLimitInterceptor(LockRegistry registry,
				LockSpecResolver distlockSpecResolver, BeanFactory beanFactory, DistLockProperties properties) {
			return new DistributedConcurrencyLimitInterceptor(registry, distlockSpecResolver,
					new LockNames(beanFactory, properties.getMaxKeysPerCall()),
					new LostLockPolicy(properties.getOnLost()));
		}

		/**
		 * Created early by the auto-proxy creator, so it depends on nothing but the
		 * environment, whose {@code distlock.*} properties it binds itself; the
		 * interceptor is looked up by name on first use.
		 */
		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DistributedLockAdvisor distlockAdvisor(Environment environment) {
			return new DistributedLockAdvisor("distlockInterceptor", orderAhead(environment, 0));
		}

		/**
		 * Created early, as the lock advisor is, and ordered just before it: a method
		 * with a concurrency limit and a lock takes its permit first.
		 */
		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DistributedConcurrencyLimitAdvisor distlockConcurrencyLimitAdvisor(Environment environment) {
			return new DistributedConcurrencyLimitAdvisor("distlockConcurrencyLimitInterceptor",
					orderAhead(environment, 1));
		}

		@Bean
		@ConditionalOnMissingBean
		LeaderOnlySpecResolver distlockLeaderOnlySpecResolver(Environment environment, DistLockProperties properties) {
			return leaderOnlySpecResolver(environment, properties);
		}

		@Bean
		@ConditionalOnMissingBean
		LeaderOnlyInterceptor distlockLeaderOnlyInterceptor(LockRegistry registry,
				LeaderOnlySpecResolver distlockLeaderOnlySpecResolver) {
			return new LeaderOnlyInterceptor(registry, distlockLeaderOnlySpecResolver);
		}

		/**
		 * Created early, as the lock advisor is, and ordered just before the concurrency
		 * limit's: a call skipped for not leading takes no permit or lock.
		 */
		@Bean
		@ConditionalOnMissingBean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static LeaderOnlyAdvisor distlockLeaderOnlyAdvisor(Environment environment) {
			return leaderOnlyAdvisor(environment);
		}

		@Bean
		@ConditionalOnMissingBean
		LeaderOnlyValidator distlockLeaderOnlyValidator(ConfigurableListableBeanFactory beanFactory,
				LeaderOnlySpecResolver distlockLeaderOnlySpecResolver, LockSpecResolver distlockSpecResolver) {
			return new LeaderOnlyValidator(beanFactory, distlockLeaderOnlySpecResolver, distlockSpecResolver);
		}

		/**
		 * Return {@code distlock.order}, bound from the environment, moved the given
		 * number of places ahead (for the advisors that run outside the lock's) and never
		 * below {@link Integer#MIN_VALUE}.
		 */
		private static int orderAhead(Environment environment, int places) {
			int order = Binder.get(environment)
				.bind("distlock", DistLockProperties.class)
				.orElseGet(DistLockProperties::new)
				.getOrder();
			return Math.max(order, Integer.MIN_VALUE + places) - places;
		}

		@Bean
		@ConditionalOnMissingBean
		LockAnnotationValidator distlockAnnotationValidator(ConfigurableListableBeanFactory beanFactory,
				LockSpecResolver distlockSpecResolver) {
			return new LockAnnotationValidator(beanFactory, distlockSpecResolver);
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
					DistributedLockAdvisor distlockAdvisor) {
				return new TransactionAdvisorOrderCheck(beanFactory, distlockAdvisor);
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
	 * Return the resolver of {@code @LeaderOnly} annotations, which checks their names
	 * against {@code distlock.leader.names}.
	 */
	static LeaderOnlySpecResolver leaderOnlySpecResolver(Environment environment, DistLockProperties properties) {
		return new LeaderOnlySpecResolver(environment, Set.copyOf(properties.getLeader().getNames()));
	}

	/**
	 * Return the advisor of {@code @LeaderOnly} methods, ordered just before the
	 * concurrency limit's, with the interceptor looked up by name on first use.
	 */
	static LeaderOnlyAdvisor leaderOnlyAdvisor(Environment environment) {
		return new LeaderOnlyAdvisor("distlockLeaderOnlyInterceptor",
				InterceptionConfiguration.orderAhead(environment, 2));
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
