package dev.distlock.aop;

import dev.distlock.LeaderOnly;

/**
 * Advisor that applies the {@link LeaderOnlyInterceptor} to methods annotated with
 * {@link LeaderOnly}, directly or through a meta-annotation. Ordered just outside the
 * advisors of distlock's locking annotations, and so outside the transaction advisor: a
 * skipped call takes no lock or permit and begins no transaction.
 *
 * @since 0.1.0
 */
public class LeaderOnlyAdvisor extends LockingAdvisor {

	/**
	 * Create an advisor.
	 * @param interceptorBeanName the name of the {@link LeaderOnlyInterceptor} bean
	 * @param order the advisor's order
	 */
	public LeaderOnlyAdvisor(String interceptorBeanName, int order) {
		super(LeaderOnly.class, interceptorBeanName, order);
	}

}
