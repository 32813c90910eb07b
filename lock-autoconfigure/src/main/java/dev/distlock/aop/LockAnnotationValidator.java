package dev.distlock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.distlock.DistributedLock;
import dev.distlock.aop.InvalidLockAnnotationException.Problem;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Checks every {@link DistributedLock} method of every bean once the singletons exist, so
 * that a bad annotation fails the startup rather than a call. Warns once about annotated
 * methods that a proxy cannot intercept (private, final or static).
 *
 * @author distlock
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
		for (String beanName : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = AutoProxyUtils.determineTargetClass(this.beanFactory, beanName);
			if (type != null) {
				check(beanName, ClassUtils.getUserClass(type), problems);
			}
		}
		if (!problems.isEmpty()) {
			throw new InvalidLockAnnotationException(problems);
		}
	}

	private void check(String beanName, Class<?> type, List<Problem> problems) {
		if (!AnnotationUtils.isCandidateClass(type, DistributedLock.class)) {
			return;
		}
		Set<Method> methods = MethodIntrospector.selectMethods(type,
				(ReflectionUtils.MethodFilter) LockSpecResolver::isLocked);
		for (Method method : methods) {
			warnIfNotInterceptable(beanName, method);
			try {
				this.specs.resolve(method, type);
			}
			catch (InvalidLockAnnotationException ex) {
				ex.getProblems().forEach((problem) -> problems.add(problem.inBean(beanName)));
			}
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
