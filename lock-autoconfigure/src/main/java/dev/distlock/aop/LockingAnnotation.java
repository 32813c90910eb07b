package dev.distlock.aop;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;

import dev.distlock.DistributedConcurrencyLimit;
import dev.distlock.DistributedLock;

/**
 * The annotations that make a method run holding something in Redis, each intercepted by
 * an advisor of its own: a lock, or a permit of a semaphore.
 */
enum LockingAnnotation {

	/** {@link DistributedLock}: the lock, or the read side, of a name. */
	DISTRIBUTED_LOCK(DistributedLock.class),

	/** {@link DistributedConcurrencyLimit}: a permit of the semaphore of a name. */
	CONCURRENCY_LIMIT(DistributedConcurrencyLimit.class);

	private final Class<? extends Annotation> type;

	LockingAnnotation(Class<? extends Annotation> type) {
		this.type = type;
	}

	/**
	 * Return the annotation type.
	 * @return the type
	 */
	Class<? extends Annotation> type() {
		return this.type;
	}

	/**
	 * Return the annotation as messages name it, such as {@code @DistributedLock}.
	 * @return the annotation's name
	 */
	String displayName() {
		return "@" + this.type.getSimpleName();
	}

	/**
	 * Return whether the method carries this annotation, directly or through a
	 * meta-annotation.
	 * @param method the method
	 * @return whether the annotation is present
	 */
	boolean isPresentOn(Method method) {
		return AnnotatedTarget.find(method, this.type).isPresent();
	}

	/**
	 * Return whether the method carries any of these annotations.
	 * @param method the method
	 * @return whether one is present
	 */
	static boolean anyPresentOn(Method method) {
		for (LockingAnnotation annotation : values()) {
			if (annotation.isPresentOn(method)) {
				return true;
			}
		}
		return false;
	}

}
