package dev.distlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedLock;
import dev.distlock.LeaderOnly;
import dev.distlock.LockContext;
import dev.distlock.LockFailureAction;
import dev.distlock.LockLease;
import dev.distlock.LockLostAction;
import dev.distlock.LockRegistry;
import dev.distlock.aop.DistLockInterception.Settings;
import dev.distlock.test.InMemoryLockRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The interception in a plain Spring application context, without Spring Boot: the
 * advisors of a {@link DistLockInterception}, registered as infrastructure beans, are
 * applied by Spring's auto-proxy creator, the registry is looked up only when a method
 * needs it, and the annotations are checked once the singletons exist.
 * <p>
 * The middle layer of the interception tests: {@link InterceptionRulesTests} and its
 * neighbours check the rules on {@link ProxyFactory} proxies, and
 * {@code DistLockInterceptionAutoConfigurationTests} checks the auto-configuration.
 */
@Timeout(10)
class DistLockInterceptionTests {

	@Test
	void annotatedBeanOfTheContextIsProxiedAndHoldsItsLockWhileItRuns() {
		try (AnnotationConfigApplicationContext context = context(Locking.class, RegistryConfiguration.class,
				Orders.class)) {
			Orders orders = context.getBean(Orders.class);
			assertThat(AopUtils.isAopProxy(orders)).isTrue();
			assertThat(orders.ship()).containsExactly("shipping");
			assertThat(ListedHolds.names(context.getBean(InMemoryLockRegistry.class))).isEmpty();
		}
	}

	@Test
	void annotatedBeanThatTheRegistryIsMadeFromIsProxiedToo() {
		try (AnnotationConfigApplicationContext context = context(Locking.class,
				RegistryFromAnnotatedBeanConfiguration.class)) {
			Orders orders = context.getBean(Orders.class);
			assertThat(AopUtils.isAopProxy(orders)).isTrue();
			assertThat(orders.ship()).containsExactly("shipping");
		}
	}

	@Test
	void lazyRegistryIsLookedUpOnceTheAnnotatedBeansExistAndThenKept() {
		try (AnnotationConfigApplicationContext context = context(Locking.class, LazyRegistryConfiguration.class,
				Orders.class)) {
			LazyRegistryConfiguration registries = context.getBean(LazyRegistryConfiguration.class);
			context.getBean(Orders.class).ship();
			context.getBean(Orders.class).ship();
			assertThat(registries.madeAfterTheAnnotatedBean).containsExactly(true);
		}
	}

	@Test
	void annotationThatCannotWorkFailsTheRefreshNamingTheMethod() {
		assertThatExceptionOfType(InvalidLockAnnotationException.class)
			.isThrownBy(() -> context(Locking.class, RegistryConfiguration.class, Invoices.class))
			.satisfies((failure) -> assertThat(failure.getProblems()).singleElement()
				.hasToString("@DistributedLock on Invoices.send(long) of bean 'distLockInterceptionTests.Invoices',"
						+ " attribute 'key': '#invoce' refers to #invoce, which is not a parameter of Invoices.send(long)"
						+ " (parameters: invoice)"));
	}

	@Test
	void interceptionThatLocksNothingLeavesLockedMethodsUnproxiedAndSkipsLeaderOnlyMethods() {
		try (AnnotationConfigApplicationContext context = context(NotLocking.class, Orders.class, ReportJob.class)) {
			assertThat(AopUtils.isAopProxy(context.getBean(Orders.class))).isFalse();
			ReportJob job = context.getBean(ReportJob.class);
			job.run();
			assertThat(AopUtils.isAopProxy(job)).isTrue();
			assertThat(job.runs()).isZero();
		}
	}

	private static AnnotationConfigApplicationContext context(Class<?>... components) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(context);
		context.register(components);
		try {
			context.refresh();
		}
		catch (RuntimeException ex) {
			context.close();
			throw ex;
		}
		return context;
	}

	private static Settings settings() {
		return new Settings(Duration.ZERO, LockFailureAction.THROW, LockLostAction.THROW, 100, Set.of("report"), 0);
	}

	/**
	 * The interception of an application that locks, and its advisors, as infrastructure
	 * beans.
	 */
	@Configuration(proxyBeanMethods = false)
	static class Locking {

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DistLockInterception interception(ObjectProvider<LockRegistry> registry,
				ConfigurableListableBeanFactory beanFactory, Environment environment) {
			return DistLockInterception.locking(registry, beanFactory, environment,
					ApplicationConversionService.getSharedInstance(), settings());
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DistLockAdvisor lockAdvisor(DistLockInterception interception) {
			return interception.lockAdvisor();
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DistLockAdvisor leaderOnlyAdvisor(DistLockInterception interception) {
			return interception.leaderOnlyAdvisor();
		}

	}

	/**
	 * The interception of an application that turned distlock off.
	 */
	@Configuration(proxyBeanMethods = false)
	static class NotLocking {

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DistLockInterception interception(ConfigurableListableBeanFactory beanFactory, Environment environment) {
			return DistLockInterception.skippingLeaderOnlyMethods(beanFactory, environment, settings());
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		static DistLockAdvisor leaderOnlyAdvisor(DistLockInterception interception) {
			return interception.leaderOnlyAdvisor();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RegistryConfiguration {

		@Bean
		InMemoryLockRegistry lockRegistry() {
			return new InMemoryLockRegistry();
		}

	}

	/**
	 * A registry whose factory method needs an annotated bean, so that bean is made while
	 * the registry is.
	 */
	@Configuration(proxyBeanMethods = false)
	static class RegistryFromAnnotatedBeanConfiguration {

		@Bean
		Orders orders() {
			return new Orders();
		}

		@Bean
		InMemoryLockRegistry lockRegistry(Orders orders) {
			return new InMemoryLockRegistry();
		}

	}

	/**
	 * A lazy registry that records, each time it is made, whether the annotated bean
	 * already existed.
	 */
	@Configuration(proxyBeanMethods = false)
	static class LazyRegistryConfiguration {

		final List<Boolean> madeAfterTheAnnotatedBean = new CopyOnWriteArrayList<>();

		@Bean
		@Lazy
		InMemoryLockRegistry lockRegistry(ConfigurableListableBeanFactory beanFactory) {
			this.madeAfterTheAnnotatedBean.add(beanFactory.containsSingleton("distLockInterceptionTests.Orders"));
			return new InMemoryLockRegistry();
		}

	}

	static class Orders {

		@DistributedLock(name = "shipping")
		List<String> ship() {
			return LockContext.leases().stream().map(LockLease::name).toList();
		}

	}

	static class Invoices {

		@DistributedLock(name = "invoice", key = "#invoce")
		void send(long invoice) {
		}

	}

	static class ReportJob {

		private final AtomicInteger runs = new AtomicInteger();

		@LeaderOnly("report")
		void run() {
			this.runs.incrementAndGet();
		}

		int runs() {
			return this.runs.get();
		}

	}

}
