package dev.distlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.DistributedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockFailureAction;
import dev.distlock.LockRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.env.PropertyResolver;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;

/**
 * Resolves and checks {@link DistributedLock} annotations into {@link LockSpec}s, once
 * per method and target class.
 *
 * @since 0.1.0
 */
public class LockSpecResolver {

	private final AnnotationAttributes attributes;

	private final KeyExpressions keys = new KeyExpressions();

	private final LockDefaults defaults;

	private final Map<MethodClassKey, LockSpec> specs = new ConcurrentHashMap<>();

	/**
	 * Create a resolver.
	 * @param placeholders resolves {@code ${...}} in names and durations
	 * @param conversions converts duration attributes, such as {@code 5s} or
	 * {@code PT5S}, to {@link Duration}s
	 * @param registry the registry that will lock the names, which checks them
	 * @param defaults the values of attributes left empty
	 */
	public LockSpecResolver(PropertyResolver placeholders, ConversionService conversions, LockRegistry registry,
			LockDefaults defaults) {
		this.attributes = new AnnotationAttributes(placeholders, conversions, registry);
		this.defaults = defaults;
	}

	/**
	 * Return whether the method carries {@link DistributedLock}, directly or through a
	 * meta-annotation.
	 * @param method the method
	 * @return whether the method is locked
	 */
	public static boolean isLocked(Method method) {
		return AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class);
	}

	/**
	 * Return the spec of an annotated method called on the given target class. The spec
	 * describes the most specific method, the one the target class implements: its
	 * parameter names, return type and annotation, not an interface method's.
	 * @param method the method
	 * @param targetClass the class of the target, or {@code null} for the declaring class
	 * @return the spec
	 * @throws InvalidLockAnnotationException if the annotation cannot work as written
	 */
	public LockSpec resolve(Method method, @Nullable Class<?> targetClass) {
		return this.specs.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> create(method, targetClass));
	}

	private LockSpec create(Method calledMethod, @Nullable Class<?> targetClass) {
		Class<?> userClass = ClassUtils
			.getUserClass((targetClass != null) ? targetClass : calledMethod.getDeclaringClass());
		Method method = AopUtils.getMostSpecificMethod(calledMethod, userClass);
		DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		if (annotation == null) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(calledMethod, DistributedLock.class);
		}
		if (annotation == null) {
			throw new IllegalStateException("No @DistributedLock on " + calledMethod);
		}
		String description = LockedMethod.describe(userClass, method);
		AnnotationProblems problems = new AnnotationProblems(description);
		String name = this.attributes.name(annotation.name(), userClass.getSimpleName() + "." + method.getName(),
				problems);
		Expression key = this.keys.parse(annotation.key(), method, problems);
		Duration waitTime = this.attributes.duration("waitTime", annotation.waitTime(), true, problems);
		Duration leaseTime = this.attributes.duration("leaseTime", annotation.leaseTime(), false, problems);
		Duration minHoldTime = this.attributes.duration("minHoldTime", annotation.minHoldTime(), false, problems);
		LockFailureAction onFailure = (annotation.onFailure() != LockFailureAction.DEFAULT) ? annotation.onFailure()
				: this.defaults.onFailure();
		ResultKind resultKind = ResultKind.of(method);
		if (onFailure == LockFailureAction.SKIP) {
			checkSkippable(method, resultKind, problems);
		}
		problems.throwIfAny();
		return new LockSpec(method, description, name, annotation.key(), key,
				(waitTime != null) ? waitTime : this.defaults.waitTime(),
				new LeaseOptions(leaseTime, minHoldTime, null), onFailure, resultKind);
	}

	/**
	 * Check that a method that skips can return what a skipped call returns: nothing for
	 * a primitive type, {@code null} for a suspend function's non-null result type.
	 */
	private static void checkSkippable(Method method, ResultKind resultKind, AnnotationProblems problems) {
		if (method.getReturnType().isPrimitive() && method.getReturnType() != void.class) {
			problems.add("onFailure", "SKIP cannot return a value of primitive type " + method.getReturnType(),
					"use onFailure = THROW, or return a wrapper type such as "
							+ ClassUtils.resolvePrimitiveIfNecessary(method.getReturnType()).getSimpleName()
							+ " or Optional");
		}
		if (resultKind == ResultKind.SUSPENDING && !SuspendingFunctions.returnsNullWhenSkipped(method)) {
			String type = SuspendingFunctions.resultType(method).getSimpleName();
			problems.add("onFailure",
					"SKIP returns null from a suspend function, and its result type " + type + " is not nullable",
					"declare the result nullable (" + type + "?), or use onFailure = THROW");
		}
	}

	/**
	 * The values that empty annotation attributes fall back to.
	 *
	 * @param waitTime how long to wait for a lock
	 * @param onFailure what to do when a lock is not acquired, {@code THROW} or
	 * {@code SKIP}
	 */
	public record LockDefaults(Duration waitTime, LockFailureAction onFailure) {

	}

}
