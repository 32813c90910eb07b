package dev.distlock.aop;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.distlock.DistributedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockFailureAction;
import dev.distlock.LockMode;
import dev.distlock.LockRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.env.PropertyResolver;
import org.springframework.expression.Expression;

/**
 * Resolves and checks {@link DistributedLock} and
 * {@link dev.distlock.DistributedConcurrencyLimit} annotations into {@link LockSpec}s,
 * once per annotation, method and target class.
 */
final class LockSpecResolver {

	private final AnnotationAttributes attributes;

	private final KeyExpressions keys = new KeyExpressions();

	private final LockDefaults defaults;

	private final Map<LockingAnnotation, Map<MethodClassKey, LockSpec>> specs = new EnumMap<>(LockingAnnotation.class);

	/**
	 * Create a resolver.
	 * @param placeholders resolves {@code ${...}} in names, durations and limits
	 * @param conversions converts duration attributes, such as {@code 5s} or
	 * {@code PT5S}, to {@link Duration}s
	 * @param registry the registry that will lock the names, which checks them, found
	 * when a name is first checked
	 * @param defaults the values of attributes left empty
	 */
	LockSpecResolver(PropertyResolver placeholders, ConversionService conversions, Supplier<LockRegistry> registry,
			LockDefaults defaults) {
		this.attributes = new AnnotationAttributes(placeholders, conversions, registry);
		this.defaults = defaults;
		for (LockingAnnotation annotation : LockingAnnotation.values()) {
			this.specs.put(annotation, new ConcurrentHashMap<>());
		}
	}

	/**
	 * Return the spec of the {@link DistributedLock} of a method called on the given
	 * target class.
	 * @param method the method
	 * @param targetClass the class of the target, or {@code null} for the declaring class
	 * @return the spec
	 * @throws InvalidLockAnnotationException if the annotation cannot work as written
	 * @see #resolve(LockingAnnotation, Method, Class)
	 */
	LockSpec resolve(Method method, @Nullable Class<?> targetClass) {
		return resolve(LockingAnnotation.DISTRIBUTED_LOCK, method, targetClass);
	}

	/**
	 * Return the spec of the given annotation of a method called on the given target
	 * class. The spec describes the most specific method, the one the target class
	 * implements: its parameter names, return type and annotation, not an interface
	 * method's.
	 * @param annotation which annotation of the method to resolve
	 * @param method the method
	 * @param targetClass the class of the target, or {@code null} for the declaring class
	 * @return the spec
	 * @throws InvalidLockAnnotationException if the annotation cannot work as written
	 */
	LockSpec resolve(LockingAnnotation annotation, Method method, @Nullable Class<?> targetClass) {
		return this.specs.get(annotation)
			.computeIfAbsent(new MethodClassKey(method, targetClass), (key) -> create(annotation, method, targetClass));
	}

	private LockSpec create(LockingAnnotation type, Method calledMethod, @Nullable Class<?> targetClass) {
		AnnotatedTarget annotated = AnnotatedTarget.of(calledMethod, targetClass, type.type());
		Class<?> userClass = annotated.userClass();
		Method method = annotated.method();
		MergedAnnotation<? extends Annotation> annotation = annotated.annotation();
		String description = annotated.description();
		AnnotationProblems problems = annotated.problems();
		String name = this.attributes.name(annotation.getString("name"),
				userClass.getSimpleName() + "." + method.getName(), problems);
		Expression key = this.keys.parse(annotation.getString("key"), method, problems);
		Duration waitTime = this.attributes.duration("waitTime", annotation.getString("waitTime"), true, problems);
		ResultKind resultKind = ResultKind.of(method);
		LockFailureAction onFailure = onFailure(annotation.getEnum("onFailure", LockFailureAction.class), method,
				resultKind, problems);
		LockTarget target;
		LeaseOptions leaseOptions;
		if (type == LockingAnnotation.CONCURRENCY_LIMIT) {
			target = LockTarget.permit(this.attributes.limit(annotation.getString("limit"), problems));
			this.attributes.offered("limit", (registry) -> registry.semaphore(name, 1), problems);
			leaseOptions = LeaseOptions.WATCHDOG;
		}
		else {
			Duration leaseTime = this.attributes.duration("leaseTime", annotation.getString("leaseTime"), false,
					problems);
			Duration minHoldTime = this.attributes.duration("minHoldTime", annotation.getString("minHoldTime"), false,
					problems);
			LockMode mode = annotation.getEnum("mode", LockMode.class);
			if (mode == LockMode.SHARED) {
				checkShared(leaseTime, minHoldTime, resultKind, method, problems);
				this.attributes.offered("mode", (registry) -> registry.readWriteLock(name), problems);
			}
			target = (mode == LockMode.SHARED) ? LockTarget.SHARED : LockTarget.EXCLUSIVE;
			leaseOptions = new LeaseOptions(leaseTime, minHoldTime, null);
		}
		problems.throwIfAny();
		return new LockSpec(method, description, name, target, annotation.getString("key"), key,
				(waitTime != null) ? waitTime : this.defaults.waitTime(), leaseOptions, onFailure, resultKind);
	}

	private LockFailureAction onFailure(LockFailureAction written, Method method, ResultKind resultKind,
			AnnotationProblems problems) {
		LockFailureAction onFailure = (written != LockFailureAction.DEFAULT) ? written : this.defaults.onFailure();
		if (onFailure == LockFailureAction.SKIP) {
			problems.checkSkippable("onFailure", method, resultKind, "SKIP", "use onFailure = THROW");
		}
		return onFailure;
	}

	/**
	 * Check what a read share cannot do: it is owned by the calling thread, renewed by
	 * the watchdog and released at once, as {@code readWriteLock(name).readLock()} holds
	 * it.
	 */
	private static void checkShared(@Nullable Duration leaseTime, @Nullable Duration minHoldTime, ResultKind resultKind,
			Method method, AnnotationProblems problems) {
		String keepIt = "remove it, or use mode = EXCLUSIVE";
		if (leaseTime != null) {
			problems.add("leaseTime",
					"mode = SHARED takes the read lock, which is renewed while held and has no fixed" + " lease",
					keepIt);
		}
		if (minHoldTime != null) {
			problems.add("minHoldTime",
					"mode = SHARED takes the read lock, which is released when the method returns and has no minimum"
							+ " hold time",
					keepIt);
		}
		if (resultKind != ResultKind.SYNCHRONOUS) {
			problems.add("mode",
					"mode = SHARED takes the read lock, which is owned by the calling thread, but "
							+ method.getReturnType().getSimpleName()
							+ " completes later, on another thread, which cannot release it",
					"return the result synchronously, or use mode = EXCLUSIVE, whose locks any thread may release");
		}
	}

	/**
	 * The values that empty annotation attributes fall back to.
	 *
	 * @param waitTime how long to wait for a lock
	 * @param onFailure what to do when a lock is not acquired, {@code THROW} or
	 * {@code SKIP}
	 */
	record LockDefaults(Duration waitTime, LockFailureAction onFailure) {

	}

}
