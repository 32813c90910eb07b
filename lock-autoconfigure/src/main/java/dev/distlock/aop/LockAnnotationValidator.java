package dev.distlock.aop;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.aop.InvalidLockAnnotationException.Problem;

/**
 * Checks every {@link dev.distlock.DistributedLock} and
 * {@link dev.distlock.DistributedConcurrencyLimit} method of every bean once the
 * singletons exist, so that a bad annotation fails the startup rather than a call. A
 * concurrency limit whose name a lock uses fails it too: the two would be the same keys
 * in Redis. Warns once about annotated methods that a proxy cannot intercept (private,
 * final or static).
 */
final class LockAnnotationValidator {

	private final LockSpecResolver specs;

	/**
	 * Create a validator.
	 * @param specs resolves and checks annotations
	 */
	LockAnnotationValidator(LockSpecResolver specs) {
		this.specs = specs;
	}

	/**
	 * Check the annotated methods of the beans.
	 * @param methods the annotated methods
	 * @throws InvalidLockAnnotationException if an annotation cannot work as written
	 */
	void check(List<LockedMethod> methods) {
		AnnotatedMethodCheck check = new AnnotatedMethodCheck();
		Map<String, LockSpec> locksByName = new HashMap<>();
		Map<LockedMethod, LockSpec> limits = new LinkedHashMap<>();
		for (LockedMethod locked : methods) {
			for (LockingAnnotation annotation : LockingAnnotation.values()) {
				if (annotation.isPresentOn(locked.method())) {
					check.check(locked, annotation.displayName(), () -> {
						LockSpec spec = this.specs.resolve(annotation, locked.method(), locked.beanType());
						if (annotation == LockingAnnotation.CONCURRENCY_LIMIT) {
							limits.put(locked, spec);
						}
						else {
							locksByName.putIfAbsent(spec.name(), spec);
						}
					});
				}
			}
		}
		limits.forEach((limited, spec) -> {
			LockSpec lock = locksByName.get(spec.name());
			if (lock != null) {
				check.add(new Problem(limited.beanName(), LockingAnnotation.CONCURRENCY_LIMIT.displayName(),
						spec.description(), "name",
						"'" + spec.name() + "' is also the name of the @DistributedLock on " + lock.description()
								+ "; a semaphore and a lock of one name would share their fencing key and wait queue"
								+ " in Redis",
						"give the concurrency limit a name of its own, such as \"" + spec.name() + "-limit\""));
			}
		});
		check.throwIfAny();
	}

}
