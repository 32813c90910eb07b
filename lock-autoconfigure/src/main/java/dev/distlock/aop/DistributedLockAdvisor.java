package dev.distlock.aop;

import dev.distlock.DistributedLock;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractBeanFactoryPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Advisor that applies the {@link DistributedLockInterceptor} to methods annotated with
 * {@link DistributedLock}, directly or through a meta-annotation. Ordered by
 * {@code distlock.order}, before the transaction advisor, so that the lock wraps the
 * transaction. The interceptor is looked up by bean name when first needed, so that the
 * advisor can be created early without pulling the registry along.
 *
 * @since 0.1.0
 */
public class DistributedLockAdvisor extends AbstractBeanFactoryPointcutAdvisor {

	private final Pointcut pointcut = new AnnotationMatchingPointcut(null, DistributedLock.class, true);

	/**
	 * Create an advisor.
	 * @param interceptorBeanName the name of the {@link DistributedLockInterceptor} bean
	 * @param order the advisor's order
	 */
	public DistributedLockAdvisor(String interceptorBeanName, int order) {
		setAdviceBeanName(interceptorBeanName);
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

}
