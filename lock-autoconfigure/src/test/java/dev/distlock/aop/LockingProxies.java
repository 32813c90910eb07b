package dev.distlock.aop;

import java.time.Duration;
import java.util.Set;

import dev.distlock.LockFailureAction;
import dev.distlock.LockRegistry;
import dev.distlock.aop.DistLockInterception.Settings;
import dev.distlock.autoconfigure.DistLockProperties;

import org.springframework.aop.framework.AopContext;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.env.StandardEnvironment;

/**
 * Builds proxies that run {@link dev.distlock.DistributedLock} and
 * {@link dev.distlock.DistributedConcurrencyLimit} methods through their advisors and
 * interceptors on a given registry, as {@link DistLockInterception} builds them, with a
 * {@link ProxyFactory} rather than an application context. Locks wait no time and throw
 * when not acquired unless their annotation says otherwise. Proxies expose themselves
 * through {@link AopContext}, for nested calls.
 */
final class LockingProxies {

	private final DistLockInterception interception;

	/**
	 * Create a builder of proxies that lock on the given registry.
	 * @param registry takes the locks
	 * @param lostLockPolicy what to do when a lock was lost while a method ran
	 */
	LockingProxies(LockRegistry registry, LostLockPolicy lostLockPolicy) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerSingleton("lockRegistry", registry);
		this.interception = DistLockInterception.locking(beanFactory.getBeanProvider(LockRegistry.class), beanFactory,
				new StandardEnvironment(), ApplicationConversionService.getSharedInstance(),
				new Settings(Duration.ZERO, LockFailureAction.THROW, lostLockPolicy.onLost(), 100, Set.of(),
						DistLockProperties.DEFAULT_ORDER));
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
		factory.addAdvisor(this.interception.concurrencyLimitAdvisor());
		factory.addAdvisor(this.interception.lockAdvisor());
		return factory.getProxy();
	}

}
