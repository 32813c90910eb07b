package dev.distlock.aop;

import java.time.Duration;

import dev.distlock.LockFailureAction;
import dev.distlock.LockRegistry;
import dev.distlock.aop.LockSpecResolver.LockDefaults;
import dev.distlock.autoconfigure.DistLockProperties;

import org.springframework.aop.framework.AopContext;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.env.StandardEnvironment;

/**
 * Builds proxies that run {@link dev.distlock.DistributedLock} and
 * {@link dev.distlock.DistributedConcurrencyLimit} methods through their advisors and
 * interceptors on a given registry, with a {@link ProxyFactory} rather than an
 * application context. Locks wait no time and throw when not acquired unless their
 * annotation says otherwise. Proxies expose themselves through {@link AopContext}, for
 * nested calls.
 */
final class LockingProxies {

	private static final String INTERCEPTOR_BEAN_NAME = "distlockInterceptor";

	private static final String LIMIT_INTERCEPTOR_BEAN_NAME = "distlockConcurrencyLimitInterceptor";

	private final DistributedLockAdvisor advisor = new DistributedLockAdvisor(INTERCEPTOR_BEAN_NAME,
			DistLockProperties.DEFAULT_ORDER);

	private final DistributedConcurrencyLimitAdvisor limitAdvisor = new DistributedConcurrencyLimitAdvisor(
			LIMIT_INTERCEPTOR_BEAN_NAME, DistLockProperties.DEFAULT_ORDER - 1);

	/**
	 * Create a builder of proxies that lock on the given registry.
	 * @param registry takes the locks
	 * @param lostLockPolicy what to do when a lock was lost while a method ran
	 */
	LockingProxies(LockRegistry registry, LostLockPolicy lostLockPolicy) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		LockSpecResolver specs = new LockSpecResolver(new StandardEnvironment(),
				ApplicationConversionService.getSharedInstance(), registry,
				new LockDefaults(Duration.ZERO, LockFailureAction.THROW));
		LockNames names = new LockNames(beanFactory, 100);
		beanFactory.registerSingleton(INTERCEPTOR_BEAN_NAME,
				new DistributedLockInterceptor(registry, specs, names, lostLockPolicy));
		beanFactory.registerSingleton(LIMIT_INTERCEPTOR_BEAN_NAME,
				new DistributedConcurrencyLimitInterceptor(registry, specs, names, lostLockPolicy));
		this.advisor.setBeanFactory(beanFactory);
		this.limitAdvisor.setBeanFactory(beanFactory);
	}

	/**
	 * Return a CGLIB proxy of the target's class.
	 * @param <T> the target's class
	 * @param target the object to call
	 * @return the proxy
	 */
	@SuppressWarnings("unchecked")
	<T> T classProxy(T target) {
		return (T) proxy(target, true);
	}

	/**
	 * Return a JDK proxy implementing the target's interfaces.
	 * @param <I> the interface the proxy is used as
	 * @param target the object to call
	 * @param type the interface the proxy is used as
	 * @return the proxy
	 */
	<I> I interfaceProxy(Object target, Class<I> type) {
		return type.cast(proxy(target, false));
	}

	private Object proxy(Object target, boolean proxyTargetClass) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(proxyTargetClass);
		factory.setExposeProxy(true);
		factory.addAdvisor(this.limitAdvisor);
		factory.addAdvisor(this.advisor);
		return factory.getProxy();
	}

}
