package dev.distlock.aop;

import dev.distlock.DistributedConcurrencyLimit;

/**
 * Advisor that applies the {@link DistributedConcurrencyLimitInterceptor} to methods
 * annotated with {@link DistributedConcurrencyLimit}, directly or through a
 * meta-annotation. Ordered just before the {@link DistributedLockAdvisor}, so that a
 * method that carries both takes its permit first, then its lock.
 *
 * @since 0.1.0
 */
public class DistributedConcurrencyLimitAdvisor extends LockingAdvisor {

	/**
	 * Create an advisor.
	 * @param interceptorBeanName the name of the
	 * {@link DistributedConcurrencyLimitInterceptor} bean
	 * @param order the advisor's order
	 */
	public DistributedConcurrencyLimitAdvisor(String interceptorBeanName, int order) {
		super(LockingAnnotation.CONCURRENCY_LIMIT, interceptorBeanName, order);
	}

}
