package dev.distlock.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.aop.InvalidLockAnnotationException.Problem;

import org.springframework.util.ClassUtils;

/**
 * The problems found in one of distlock's annotations on a method, each with the
 * attribute it is in and what to write instead.
 */
final class AnnotationProblems {

	private final String annotation;

	private final String method;

	private final List<Problem> problems = new ArrayList<>();

	/**
	 * Create a collection of problems.
	 * @param annotation the annotation as messages name it, such as
	 * {@code @DistributedLock}
	 * @param method the annotated method as messages name it
	 */
	AnnotationProblems(String annotation, String method) {
		this.annotation = annotation;
		this.method = method;
	}

	/**
	 * Return the description of the annotated method, as messages name it.
	 */
	String method() {
		return this.method;
	}

	/**
	 * Record a problem of an attribute.
	 */
	void add(String attribute, String problem, String action) {
		this.problems.add(new Problem(null, this.annotation, this.method, attribute, problem, action));
	}

	/**
	 * Run a check of an attribute, recording its {@link IllegalArgumentException} as the
	 * attribute's problem.
	 * @return whether the check passed
	 */
	boolean check(String attribute, Runnable check, String action) {
		try {
			check.run();
			return true;
		}
		catch (IllegalArgumentException ex) {
			add(attribute, ex.getMessage(), action);
			return false;
		}
	}

	/**
	 * Check that a method whose calls may be skipped can return what a skipped call
	 * returns: nothing for a primitive type, {@code null} for a suspend function's
	 * non-null result type.
	 * @param attribute the attribute that makes calls skip
	 * @param method the method
	 * @param resultKind how the method delivers its result
	 * @param skipped what skips the calls, such as {@code SKIP}
	 * @param otherwise what else to write, such as {@code use onFailure = THROW}
	 */
	void checkSkippable(String attribute, Method method, ResultKind resultKind, String skipped, String otherwise) {
		if (method.getReturnType().isPrimitive() && method.getReturnType() != void.class) {
			add(attribute, skipped + " cannot return a value of primitive type " + method.getReturnType(),
					otherwise + ", or return a wrapper type such as "
							+ ClassUtils.resolvePrimitiveIfNecessary(method.getReturnType()).getSimpleName()
							+ " or Optional");
		}
		if (resultKind == ResultKind.SUSPENDING && !SuspendingFunctions.returnsNullWhenSkipped(method)) {
			String type = SuspendingFunctions.resultType(method).getSimpleName();
			add(attribute,
					skipped + " returns null from a suspend function, and its result type " + type + " is not nullable",
					"declare the result nullable (" + type + "?), or " + otherwise);
		}
	}

	/**
	 * Throw the problems found, if any.
	 * @throws InvalidLockAnnotationException if a problem was found
	 */
	void throwIfAny() {
		if (!this.problems.isEmpty()) {
			throw new InvalidLockAnnotationException(this.problems);
		}
	}

}
