package dev.distlock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.aop.InvalidLockAnnotationException.Problem;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A startup check of the annotations on beans' methods: collects the problems of every
 * annotated method, each naming its bean, so that the startup fails once with all of
 * them, and warns about annotated methods that a proxy cannot intercept (private, final
 * or static).
 */
final class AnnotatedMethodCheck {

	private static final Log logger = LogFactory.getLog(AnnotatedMethodCheck.class);

	private final List<Problem> problems = new ArrayList<>();

	/**
	 * Check one annotation of one method: warn if a proxy cannot intercept the method,
	 * and record the problems the resolution of its annotation throws.
	 * @param annotated the annotated method of a bean
	 * @param annotation the annotation as messages name it, such as
	 * {@code @DistributedLock}
	 * @param resolution resolves the annotation, throwing
	 * {@link InvalidLockAnnotationException} when it cannot work as written
	 */
	void check(LockedMethod annotated, String annotation, Runnable resolution) {
		warnIfNotInterceptable(annotation, annotated.beanName(), annotated.method());
		try {
			resolution.run();
		}
		catch (InvalidLockAnnotationException ex) {
			ex.getProblems().forEach((problem) -> this.problems.add(problem.inBean(annotated.beanName())));
		}
	}

	/**
	 * Record a problem found across methods.
	 * @param problem the problem, naming its bean
	 */
	void add(Problem problem) {
		this.problems.add(problem);
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

	private static void warnIfNotInterceptable(String annotation, String beanName, Method method) {
		int modifiers = method.getModifiers();
		if (Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers) || Modifier.isStatic(modifiers)) {
			logger.warn(annotation + " on "
					+ (Modifier.isPrivate(modifiers) ? "private" : Modifier.isFinal(modifiers) ? "final" : "static")
					+ " method " + method.getDeclaringClass().getSimpleName() + "." + method.getName() + " of bean '"
					+ beanName
					+ "' has no effect: a proxy can only intercept public or protected, non-final instance methods"
					+ " called from another bean");
		}
	}

}
