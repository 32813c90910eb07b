package dev.distlock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.aop.InvalidLockAnnotationException.Problem;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Checks every {@link dev.distlock.DistributedLock} method of every bean once the
 * singletons exist, so that a bad annotation fails the startup rather than a call. Warns
 * once about annotated methods that a proxy cannot intercept (private, final or static).
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
		for (LockedMethod locked : LockedMethod.findIn(this.beanFactory)) {
			warnIfNotInterceptable(locked.beanName(), locked.method());
			try {
				this.specs.resolve(locked.method(), locked.beanType());
			}
			catch (InvalidLockAnnotationException ex) {
				ex.getProblems().forEach((problem) -> problems.add(problem.inBean(locked.beanName())));
			}
		}
		if (!problems.isEmpty()) {
			throw new InvalidLockAnnotationException(problems);
		}
	}

	private static void warnIfNotInterceptable(String beanName, Method method) {
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers) || Modifier.isStatic(modifiers)) {
			logger.warn("@DistributedLock on "
					+ (Modifier.isPrivate(modifiers) ? "private" : Modifier.isFinal(modifiers) ? "final" : "static")
					+ " method " + method.getDeclaringClass().getSimpleName() + "." + method.getName() + " of bean '"
					+ beanName
					+ "' has no effect: a proxy can only intercept public or protected, non-final instance methods"
					+ " called from another bean");
		}
	}

}
