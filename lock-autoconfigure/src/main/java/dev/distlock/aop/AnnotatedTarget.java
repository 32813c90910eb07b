package dev.distlock.aop;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotationSelectors;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.annotation.RepeatableContainers;
import org.springframework.util.ClassUtils;

/**
 * One of distlock's annotations on the method a call runs: the most specific method of
 * the target's user class, the one the target class implements (through a JDK proxy the
 * called method is the interface's), with its annotation, or else the called method's.
 *
 * @param userClass the user class of the target
 * @param method the method the target class implements
 * @param annotation the annotation, merged with the attributes of the annotations it is a
 * meta-annotation of
 */
record AnnotatedTarget(Class<?> userClass, Method method, MergedAnnotation<? extends Annotation> annotation) {

	/**
	 * Resolve the annotation of a called method.
	 * @param calledMethod the method called, possibly an interface's
	 * @param targetClass the class of the target, or {@code null} for the declaring class
	 * @param type the annotation type
	 * @throws IllegalStateException if neither method carries the annotation
	 */
	static AnnotatedTarget of(Method calledMethod, @Nullable Class<?> targetClass, Class<? extends Annotation> type) {
		Class<?> userClass = ClassUtils
			.getUserClass((targetClass != null) ? targetClass : calledMethod.getDeclaringClass());
		Method method = AopUtils.getMostSpecificMethod(calledMethod, userClass);
		MergedAnnotation<? extends Annotation> annotation = find(method, type);
		if (!annotation.isPresent()) {
			annotation = find(calledMethod, type);
		}
		if (!annotation.isPresent()) {
			throw new IllegalStateException("No @" + type.getSimpleName() + " on " + calledMethod);
		}
		return new AnnotatedTarget(userClass, method, annotation);
	}

	/**
	 * Find an annotation on a method, merged with the attributes of the annotations it is
	 * a meta-annotation of, as {@code AnnotatedElementUtils.findMergedAnnotation} finds
	 * it.
	 * @param method the method
	 * @param type the annotation type
	 * @return the annotation, which may be missing
	 */
	static MergedAnnotation<? extends Annotation> find(Method method, Class<? extends Annotation> type) {
		return MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY, RepeatableContainers.none())
			.get(type, null, MergedAnnotationSelectors.firstDirectlyDeclared());
	}

	/**
	 * Return the method as messages name it, such as {@code OrderService.pay(long)}.
	 */
	String description() {
		return LockedMethod.describe(this.userClass, this.method);
	}

	/**
	 * Return what to collect the annotation's problems in.
	 */
	AnnotationProblems problems() {
		return new AnnotationProblems("@" + this.annotation.getType().getSimpleName(), description());
	}

}
