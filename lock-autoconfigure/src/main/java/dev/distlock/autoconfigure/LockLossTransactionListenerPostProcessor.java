package dev.distlock.autoconfigure;

import dev.distlock.aop.LockLossTransactionListener;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.transaction.ConfigurableTransactionManager;

/**
 * Adds a {@link LockLossTransactionListener} to every transaction manager bean that takes
 * execution listeners, the application's own included, so that transactions begun inside
 * {@code @DistributedLock} methods do not commit once their locks are known lost.
 */
final class LockLossTransactionListenerPostProcessor implements BeanPostProcessor {

	private final LockLossTransactionListener listener = new LockLossTransactionListener();

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		if (bean instanceof ConfigurableTransactionManager manager) {
			manager.addListener(this.listener);
		}
		return bean;
	}

}
