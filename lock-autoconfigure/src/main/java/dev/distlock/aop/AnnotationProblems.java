package dev.distlock.aop;

import java.util.ArrayList;
import java.util.List;

import dev.distlock.aop.InvalidLockAnnotationException.Problem;

/**
 * The problems found in one locking annotation of a method, each with the attribute it is
 * in and what to write instead.
 */
final class AnnotationProblems {

	private final LockingAnnotation annotation;

	private final String method;

	private final List<Problem> problems = new ArrayList<>();

	AnnotationProblems(LockingAnnotation annotation, String method) {
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
		this.problems.add(new Problem(null, this.annotation.displayName(), this.method, attribute, problem, action));
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
	 * Throw the problems found, if any.
	 * @throws InvalidLockAnnotationException if a problem was found
	 */
	void throwIfAny() {
		if (!this.problems.isEmpty()) {
			throw new InvalidLockAnnotationException(this.problems);
		}
	}

}
