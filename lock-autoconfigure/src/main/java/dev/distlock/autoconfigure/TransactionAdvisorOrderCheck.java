package dev.distlock.autoconfigure;

import java.util.List;
import java.util.Map;

import dev.distlock.aop.DistLockAdvisor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.Advisor;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.OrderUtils;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;
import org.springframework.transaction.interceptor.TransactionInterceptor;

/**
 * Warns once at startup when a transaction advisor is ordered at or before distlock's
 * advisor: a method that is both locked and transactional would then release its locks
 * before its transaction commits, and the next holder could read state not committed yet.
 *
 * @since 0.1.0
 */
class TransactionAdvisorOrderCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(TransactionAdvisorOrderCheck.class);

	private final ListableBeanFactory beanFactory;

	private final DistLockAdvisor lockAdvisor;

	TransactionAdvisorOrderCheck(ListableBeanFactory beanFactory, DistLockAdvisor lockAdvisor) {
		this.beanFactory = beanFactory;
		this.lockAdvisor = lockAdvisor;
	}

	@Override
	public void afterSingletonsInstantiated() {
		int lockOrder = this.lockAdvisor.getOrder();
		List<String> outer = this.beanFactory.getBeansOfType(Advisor.class, false, false)
			.entrySet()
			.stream()
			.filter((entry) -> isTransactional(entry.getValue()) && orderOf(entry.getValue()) <= lockOrder)
			.map(TransactionAdvisorOrderCheck::describe)
			.toList();
		if (!outer.isEmpty()) {
			logger.warn("Transaction advice is ordered at or before distlock's advisor (order " + lockOrder + "): "
					+ String.join(", ", outer) + ". A @DistributedLock method that is also @Transactional then"
					+ " releases its locks before its transaction commits, and the next holder can read state that is"
					+ " not committed yet. Give distlock's advisor the lower order: set distlock.order below the"
					+ " transaction advisor's, or raise that one, for example with"
					+ " @EnableTransactionManagement(order = ...). By default distlock's order is "
					+ DistLockProperties.DEFAULT_ORDER + ", before the transaction advisor's default, "
					+ Ordered.LOWEST_PRECEDENCE + ".");
		}
	}

	private static boolean isTransactional(Advisor advisor) {
		return (advisor instanceof BeanFactoryTransactionAttributeSourceAdvisor)
				|| (advisor.getAdvice() instanceof TransactionInterceptor);
	}

	/**
	 * Return the order by which auto-proxy creators sort the advisor.
	 */
	private static int orderOf(Advisor advisor) {
		return (advisor instanceof Ordered ordered) ? ordered.getOrder()
				: OrderUtils.getOrder(advisor.getClass(), Ordered.LOWEST_PRECEDENCE);
	}

	private static String describe(Map.Entry<String, Advisor> advisor) {
		return "bean '" + advisor.getKey() + "' with order " + orderOf(advisor.getValue());
	}

}
