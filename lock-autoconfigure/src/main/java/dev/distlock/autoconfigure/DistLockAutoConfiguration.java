package dev.distlock.autoconfigure;

import dev.distlock.LockFailureAction;
import dev.distlock.LockRegistry;
import dev.distlock.aop.DistributedLockAdvisor;
import dev.distlock.aop.DistributedLockInterceptor;
import dev.distlock.aop.LockAnnotationValidator;
import dev.distlock.aop.LockNames;
import dev.distlock.aop.LockSpecResolver;
import dev.distlock.aop.LockSpecResolver.LockDefaults;
import dev.distlock.aop.LostLockPolicy;
import dev.distlock.autoconfigure.DistLockProperties.FailureAction;
import dev.distlock.autoconfigure.DistLockProperties.LostAction;
import dev.distlock.redis.LockObserver;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisLockSettings;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Auto-configuration of distlock on the Lettuce connection that Spring Boot configured
 * from {@code spring.data.redis.*}: the {@link LockRegistry} and the interception of
 * {@code @DistributedLock} methods.
 *
 * @author distlock
 * @since 0.1.0
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass(LettuceConnectionFactory.class)
@ConditionalOnBean(LettuceConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistLockProperties.class)
@Import(DistLockAutoConfiguration.AutoProxyCreatorRegistrar.class)
public final class DistLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	RedisLockRegistry distLockRegistry(LettuceConnectionFactory connectionFactory, DistLockProperties properties,
			ApplicationEventPublisher eventPublisher, ObjectProvider<LockObserver> observer) {
		RedisLockSettings settings = new RedisLockSettings(properties.getKeyPrefix(), properties.getLeaseTime(),
				connectionFactory.getClientConfiguration().getCommandTimeout(),
				properties.getRedis().getReplicasToAck(), properties.getRedis().getReplicaAckTimeout());
		return new RedisLockRegistry(connectionFactory.getRequiredNativeClient(), settings,
				eventPublisher::publishEvent, observer.getIfUnique(() -> LockObserver.NONE));
	}

	@Bean
	@ConditionalOnMissingBean
	LockSpecResolver distLockSpecResolver(Environment environment, DistLockProperties properties) {
		LockFailureAction onFailure = (properties.getOnFailure() == FailureAction.SKIP) ? LockFailureAction.SKIP
				: LockFailureAction.THROW;
		return new LockSpecResolver(environment,
				new LockDefaults(properties.getKeyPrefix(), properties.getWaitTime(), onFailure));
	}

	@Bean
	@ConditionalOnMissingBean
	DistributedLockInterceptor distributedLockInterceptor(LockRegistry registry, LockSpecResolver distLockSpecResolver,
			BeanFactory beanFactory, DistLockProperties properties) {
		return new DistributedLockInterceptor(registry, distLockSpecResolver,
				new LockNames(beanFactory, properties.getMaxKeysPerCall()),
				new LostLockPolicy(properties.getOnLost() == LostAction.THROW));
	}

	/**
	 * Created early by the auto-proxy creator, so it depends on nothing but the
	 * environment; the interceptor is looked up by name on first use.
	 */
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static DistributedLockAdvisor distributedLockAdvisor(Environment environment) {
		return new DistributedLockAdvisor("distributedLockInterceptor",
				environment.getProperty("distlock.order", Integer.class, DistLockProperties.DEFAULT_ORDER));
	}

	@Bean
	@ConditionalOnMissingBean
	LockAnnotationValidator distLockAnnotationValidator(ConfigurableListableBeanFactory beanFactory,
			LockSpecResolver distLockSpecResolver) {
		return new LockAnnotationValidator(beanFactory, distLockSpecResolver);
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
