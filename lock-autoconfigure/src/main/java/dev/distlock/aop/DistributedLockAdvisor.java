package dev.distlock.aop;

import dev.distlock.DistributedLock;
import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Advisor that applies the {@link DistributedLockInterceptor} to methods annotated with
 * {@link DistributedLock}, directly or through a meta-annotation. Ordered by
 * {@code distlock.order}, before the transaction advisor, so that the lock wraps the
 * transaction.
 *
 * @author distlock
 * @since 0.1.0
 */
public class DistributedLockAdvisor extends AbstractPointcutAdvisor {

	private final DistributedLockInterceptor interceptor;

	private final Pointcut pointcut = new AnnotationMatchingPointcut(null, DistributedLock.class, true);

	/**
	 * Create an advisor.
	 * @param interceptor the locking interceptor
	 * @param order the advisor's order
	 */
	public DistributedLockAdvisor(DistributedLockInterceptor interceptor, int order) {
		this.interceptor = interceptor;
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
