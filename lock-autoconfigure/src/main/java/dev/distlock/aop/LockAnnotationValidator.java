package dev.distlock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.aop.InvalidLockAnnotationException.Problem;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Checks every {@link dev.distlock.DistributedLock} and
 * {@link dev.distlock.DistributedConcurrencyLimit} method of every bean once the
 * singletons exist, so that a bad annotation fails the startup rather than a call. A
 * concurrency limit whose name a lock uses fails it too: the two would be the same keys
 * in Redis. Warns once about annotated methods that a proxy cannot intercept (private,
 * final or static).
 *
 * @since 0.1.0
 */
public class LockAnnotationValidator implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(LockAnnotationValidator.class);

	private final ConfigurableListableBeanFactory beanFactory;

	private final LockSpecResolver specs;

	/**
	 * Create a validator.
	 * @param beanFactory the beans to check
	 * @param specs resolves and checks annotations
	 */
	public LockAnnotationValidator(ConfigurableListableBeanFactory beanFactory, LockSpecResolver specs) {
		this.beanFactory = beanFactory;
		this.specs = specs;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<Problem> problems = new ArrayList<>();
		Map<String, LockSpec> locksByName = new HashMap<>();
		Map<LockedMethod, LockSpec> limits = new LinkedHashMap<>();
		for (LockedMethod locked : LockedMethod.findIn(this.beanFactory)) {
			for (LockingAnnotation annotation : LockingAnnotation.values()) {
				if (annotation.isPresentOn(locked.method())) {
					warnIfNotInterceptable(annotation, locked.beanName(), locked.method());
					try {
						LockSpec spec = this.specs.resolve(annotation, locked.method(), locked.beanType());
						if (annotation == LockingAnnotation.CONCURRENCY_LIMIT) {
							limits.put(locked, spec);
						}
						else {
							locksByName.putIfAbsent(spec.name(), spec);
						}
					}
					catch (InvalidLockAnnotationException ex) {
						ex.getProblems().forEach((problem) -> problems.add(problem.inBean(locked.beanName())));
					}
				}
			}
		}
		limits.forEach((limited, spec) -> {
			LockSpec lock = locksByName.get(spec.name());
			if (lock != null) {
				problems.add(new Problem(limited.beanName(), LockingAnnotation.CONCURRENCY_LIMIT.displayName(),
						spec.description(), "name",
						"'" + spec.name() + "' is also the name of the @DistributedLock on " + lock.description()
								+ "; a semaphore and a lock of one name would share their fencing key and wait queue"
								+ " in Redis",
						"give the concurrency limit a name of its own, such as \"" + spec.name() + "-limit\""));
			}
		});
		if (!problems.isEmpty()) {
			throw new InvalidLockAnnotationException(problems);
		}
	}

	private static void warnIfNotInterceptable(LockingAnnotation annotation, String beanName, Method method) {
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers) || Modifier.isStatic(modifiers)) {
			logger.warn(annotation.displayName() + " on "
					+ (Modifier.isPrivate(modifiers) ? "private" : Modifier.isFinal(modifiers) ? "final" : "static")
					+ " method " + method.getDeclaringClass().getSimpleName() + "." + method.getName() + " of bean '"
					+ beanName
					+ "' has no effect: a proxy can only intercept public or protected, non-final instance methods"
					+ " called from another bean");
		}
	}

}
