package dev.distlock.autoconfigure;

import java.util.List;

import dev.distlock.LockRegistry;
import dev.distlock.aop.DistLockInterception;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Fails the startup of a context that has {@link dev.distlock.DistributedLock},
 * {@link dev.distlock.DistributedConcurrencyLimit} or {@link dev.distlock.LeaderOnly}
 * methods but no {@link LockRegistry} bean to run them with; registered only when there
 * is no such bean.
 *
 * @since 0.1.0
 */
class MissingLockRegistryCheck implements SmartInitializingSingleton {

	private final ConfigurableListableBeanFactory beanFactory;

	MissingLockRegistryCheck(ConfigurableListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<String> methods = DistLockInterception.annotatedMethods(this.beanFactory);
		if (!methods.isEmpty()) {
			throw new MissingLockRegistryException(methods);
		}
	}

}
