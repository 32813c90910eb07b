package dev.distlock.aop;

import dev.distlock.DistributedLock;

/**
 * Advisor that applies the {@link DistributedLockInterceptor} to methods annotated with
 * {@link DistributedLock}, directly or through a meta-annotation. Ordered by
 * {@code distlock.order}, before the transaction advisor, so that the lock wraps the
 * transaction.
 *
 * @since 0.1.0
 */
public class DistributedLockAdvisor extends LockingAdvisor {

	/**
	 * Create an advisor.
	 * @param interceptorBeanName the name of the {@link DistributedLockInterceptor} bean
	 * @param order the advisor's order
	 */
	public DistributedLockAdvisor(String interceptorBeanName, int order) {
		super(LockingAnnotation.DISTRIBUTED_LOCK, interceptorBeanName, order);
	}

}
