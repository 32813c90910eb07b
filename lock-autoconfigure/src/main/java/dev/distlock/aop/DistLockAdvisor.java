package dev.distlock.aop;

import java.lang.annotation.Annotation;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Advisor that applies distlock's interceptor of one annotation,
 * {@code @DistributedLock}, {@code @DistributedConcurrencyLimit} or {@code @LeaderOnly},
 * to the methods that carry it, directly or through a meta-annotation. Built by
 * {@link DistLockInterception}, which orders the advisors: {@code @LeaderOnly} first, so
 * that a skipped call takes no permit or lock, then the concurrency limit, so that a
 * method with both takes its permit before its lock, then the lock at
 * {@code distlock.order}, before the transaction advisor, so that the lock wraps the
 * transaction.
 *
 * @since 0.1.0
 * @see DistLockInterception
 */
public final class DistLockAdvisor extends AbstractPointcutAdvisor {

	private final Pointcut pointcut;

	private final MethodInterceptor interceptor;

	/**
	 * Create an advisor of the methods that carry the given annotation.
	 * @param annotationType the type of the annotation
	 * @param interceptor runs the annotated methods
	 * @param order the advisor's order
	 */
	DistLockAdvisor(Class<? extends Annotation> annotationType, MethodInterceptor interceptor, int order) {
		this.pointcut = new AnnotationMatchingPointcut(null, annotationType, true);
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
