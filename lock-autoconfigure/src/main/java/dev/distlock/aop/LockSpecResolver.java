package dev.distlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.distlock.LockName;
import dev.distlock.DistributedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockFailureAction;
import dev.distlock.aop.InvalidLockAnnotationException.Problem;
import dev.distlock.aop.LockKeyValues.Rejection;
import dev.distlock.redis.LockKeys;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Resolves and checks {@link DistributedLock} annotations into {@link LockSpec}s, once
 * per method and target class.
 *
 * @author distlock
 * @since 0.1.0
 */
public class LockSpecResolver {

	private static final Set<String> ROOT_VARIABLES = Set.of("root", "this");

	private static final Pattern POSITIONAL_VARIABLE = Pattern.compile("[pa][0-9]{1,9}");

	private final PropertyResolver placeholders;

	private final LockDefaults defaults;

	private final ExpressionParser parser = new SpelExpressionParser();

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final Map<MethodClassKey, LockSpec> specs = new ConcurrentHashMap<>();

	/**
	 * Create a resolver.
	 * @param placeholders resolves {@code ${...}} in names and durations
	 * @param defaults the values of attributes left empty
	 */
	public LockSpecResolver(PropertyResolver placeholders, LockDefaults defaults) {
		this.placeholders = placeholders;
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
		Checker checker = new Checker(description);
		String name = checker.name(annotation.name(), userClass.getSimpleName() + "." + method.getName());
		Expression key = checker.key(annotation.key(), method);
		Duration waitTime = checker.duration("waitTime", annotation.waitTime(), true);
		Duration leaseTime = checker.duration("leaseTime", annotation.leaseTime(), false);
		Duration minHoldTime = checker.duration("minHoldTime", annotation.minHoldTime(), false);
		LockFailureAction onFailure = (annotation.onFailure() != LockFailureAction.DEFAULT) ? annotation.onFailure()
				: this.defaults.onFailure();
		if (onFailure == LockFailureAction.SKIP && method.getReturnType().isPrimitive()
				&& method.getReturnType() != void.class) {
			checker.problem("onFailure", "SKIP cannot return a value of primitive type " + method.getReturnType(),
					"use onFailure = THROW, or return a wrapper type such as "
							+ ClassUtils.resolvePrimitiveIfNecessary(method.getReturnType()).getSimpleName()
							+ " or Optional");
		}
		checker.throwIfAny();
		return new LockSpec(method, description, name, annotation.key(), key,
				(waitTime != null) ? waitTime : this.defaults.waitTime(), new LeaseOptions(leaseTime, minHoldTime),
				onFailure == LockFailureAction.SKIP, ResultKind.of(method));
	}

	/**
	 * Collects the problems of one annotation.
	 */
	private final class Checker {

		private final String method;

		private final List<Problem> problems = new ArrayList<>();

		Checker(String method) {
			this.method = method;
		}

		String name(String value, String fallback) {
			if (!StringUtils.hasText(value)) {
				return fallback;
			}
			String name;
			try {
				name = LockSpecResolver.this.placeholders.resolveRequiredPlaceholders(value);
			}
			catch (IllegalArgumentException ex) {
				problem("name", ex.getMessage(), "define the property or write the name as a literal");
				return value;
			}
			if (check("name", () -> LockName.of(name),
					"remove the '!', or write another separator such as ':' or '.' in its place")) {
				check("name", () -> LockKeys.fenceKey(LockSpecResolver.this.defaults.keyPrefix() + name),
						"remove the '}', or put the part that should choose the Cluster slot in braces, such as \"{tenant}:orders\"");
			}
			return name;
		}

		/**
		 * Run a check of an attribute, recording its {@link IllegalArgumentException} as
		 * the attribute's problem.
		 * @return whether the check passed
		 */
		private boolean check(String attribute, Runnable check, String action) {
			try {
				check.run();
				return true;
			}
			catch (IllegalArgumentException ex) {
				problem(attribute, ex.getMessage(), action);
				return false;
			}
		}

		@Nullable Expression key(String source, Method method) {
			if (!StringUtils.hasText(source)) {
				return null;
			}
			Expression expression;
			try {
				expression = LockSpecResolver.this.parser.parseExpression(source);
			}
			catch (ParseException ex) {
				problem("key", "'" + source + "' is not a valid SpEL expression: " + ex.getMessage(),
						"write a SpEL expression over the parameters, such as \"#orderId\" or \"#p0\"");
				return null;
			}
			String[] names = LockSpecResolver.this.parameterNames.getParameterNames(method);
			checkVariables(source, expression, method, names);
			checkValueType(source, expression, method, names);
			return expression;
		}

		private void checkVariables(String source, Expression expression, Method method, String @Nullable [] names) {
			Set<String> known = new HashSet<>(ROOT_VARIABLES);
			if (names != null) {
				known.addAll(Arrays.asList(names));
			}
			for (int i = 0; i < method.getParameterCount(); i++) {
				known.add("p" + i);
				known.add("a" + i);
			}
			Set<String> used = new HashSet<>();
			collectVariables(((SpelExpression) expression).getAST(), used);
			used.removeAll(known);
			for (String unknown : used) {
				problem("key",
						"'" + source + "' refers to #" + unknown + ", which is not a parameter of " + this.method
								+ ((names != null) ? " (parameters: " + String.join(", ", names) + ")"
										: " (parameter names were not compiled in)"),
						"refer to a parameter by name (compile with -parameters) or by position as #p0 or #a0");
			}
		}

		/**
		 * Check the type of a key that is exactly a parameter, such as {@code #order} or
		 * {@code #p0}: a type whose every value lacks a stable text fails every call.
		 */
		private void checkValueType(String source, Expression expression, Method method, String @Nullable [] names) {
			SpelNode ast = ((SpelExpression) expression).getAST();
			if (!(ast instanceof VariableReference)) {
				return;
			}
			int index = parameterIndex(ast.toStringAST().substring(1), method, names);
			Rejection rejection = (index >= 0)
					? LockKeyValues.rejectionOf(ResolvableType.forMethodParameter(method, index)) : null;
			if (rejection != null) {
				problem("key", "'" + source + "' evaluates to " + rejection.problem(), rejection.action());
			}
		}

		private static int parameterIndex(String variable, Method method, String @Nullable [] names) {
			int named = (names != null) ? Arrays.asList(names).indexOf(variable) : -1;
			if (named >= 0 || !POSITIONAL_VARIABLE.matcher(variable).matches()) {
				return named;
			}
			int position = Integer.parseInt(variable.substring(1));
			return (position < method.getParameterCount()) ? position : -1;
		}

		private void collectVariables(SpelNode node, Set<String> variables) {
			if (node instanceof VariableReference) {
				variables.add(node.toStringAST().substring(1));
			}
			for (int i = 0; i < node.getChildCount(); i++) {
				collectVariables(node.getChild(i), variables);
			}
		}

		@Nullable Duration duration(String attribute, String value, boolean zeroAllowed) {
			if (!StringUtils.hasText(value)) {
				return null;
			}
			String resolved;
			try {
				resolved = LockSpecResolver.this.placeholders.resolveRequiredPlaceholders(value).trim();
			}
			catch (IllegalArgumentException ex) {
				problem(attribute, ex.getMessage(),
						"define the property or write the duration as a literal such as \"5s\"");
				return null;
			}
			try {
				Duration duration = DurationStyle.detectAndParse(resolved);
				if (duration.isNegative() || (!zeroAllowed && duration.isZero())) {
					problem(attribute, "'" + value + "' is " + (duration.isZero() ? "zero" : "negative"),
							"use a " + (zeroAllowed ? "non-negative" : "positive") + " duration such as \"5s\"");
					return null;
				}
				if (!zeroAllowed && !countsInMilliseconds(duration)) {
					problem(attribute, "'" + value + "' cannot be kept by Redis, which counts whole milliseconds",
							"use a duration from 1ms to about 290 million years, such as \"30s\"");
					return null;
				}
				return duration;
			}
			catch (IllegalArgumentException ex) {
				problem(attribute, "'" + value + "' is not a duration: " + ex.getMessage(),
						"write a duration such as \"500ms\", \"5s\" or \"PT5S\", or a ${...} placeholder that resolves to one");
				return null;
			}
		}

		private static boolean countsInMilliseconds(Duration duration) {
			try {
				return duration.toMillis() >= 1;
			}
			catch (ArithmeticException ex) {
				return false;
			}
		}

		void problem(String attribute, String problem, String action) {
			this.problems.add(new Problem(null, this.method, attribute, problem, action));
		}

		void throwIfAny() {
			if (!this.problems.isEmpty()) {
				throw new InvalidLockAnnotationException(this.problems);
			}
		}

	}

	/**
	 * The values that empty annotation attributes fall back to.
	 *
	 * @param keyPrefix the prefix of every lock key, to check that names make valid keys
	 * @param waitTime how long to wait for a lock
	 * @param onFailure what to do when a lock is not acquired, {@code THROW} or
	 * {@code SKIP}
	 */
	public record LockDefaults(String keyPrefix, Duration waitTime, LockFailureAction onFailure) {

	}

}
