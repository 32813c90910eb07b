package dev.distlock.aop;

import java.lang.annotation.Annotation;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractBeanFactoryPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Advisor that applies an interceptor of distlock's to the methods that carry its
 * annotation, such as a {@link LockingInterceptor} to those of its
 * {@link LockingAnnotation}, directly or through a meta-annotation. The interceptor is
 * looked up by bean name when first needed, so that the advisor can be created early
 * without pulling the registry along.
 *
 * @since 0.1.0
 */
public abstract class LockingAdvisor extends AbstractBeanFactoryPointcutAdvisor {

	private final Pointcut pointcut;

	/**
	 * Create an advisor of the methods that carry the given annotation.
	 * @param annotation the annotation
	 * @param interceptorBeanName the name of the interceptor bean for that annotation
	 * @param order the advisor's order
	 */
	protected LockingAdvisor(LockingAnnotation annotation, String interceptorBeanName, int order) {
		this(annotation.type(), interceptorBeanName, order);
	}

	/**
	 * Create an advisor of the methods that carry the given annotation type.
	 * @param annotationType the type of the annotation
	 * @param interceptorBeanName the name of the interceptor bean for that annotation
	 * @param order the advisor's order
	 */
	protected LockingAdvisor(Class<? extends Annotation> annotationType, String interceptorBeanName, int order) {
		this.pointcut = new AnnotationMatchingPointcut(null, annotationType, true);
		setAdviceBeanName(interceptorBeanName);
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

}
