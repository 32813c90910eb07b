package dev.distlock.aop;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;

import dev.distlock.aop.LockKeyValues.Rejection;
import org.jspecify.annotations.Nullable;

import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Parses and checks the {@code key} of a {@link dev.distlock.DistributedLock}: a SpEL
 * expression that must parse, refer only to the method's parameters, and, when it is
 * exactly one parameter, be of a type whose values have a stable text. Variables are
 * found by walking the parsed expression through SpEL's public {@link SpelNode} view: a
 * variable reference is a node written {@code #name}.
 */
final class KeyExpressions {

	private static final Set<String> ROOT_VARIABLES = Set.of("root", "this");

	private static final Pattern VARIABLE = Pattern.compile("#([A-Za-z_$][A-Za-z0-9_$]*)");

	private static final Pattern POSITIONAL_VARIABLE = Pattern.compile("[pa][0-9]{1,9}");

	private final SpelExpressionParser parser = new SpelExpressionParser();

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	/**
	 * Parse and check a key, recording what is wrong with it.
	 * @param source the key as written, empty for none
	 * @param method the annotated method
	 * @param problems where problems go
	 * @return the expression, or {@code null} for no key or one that does not parse
	 */
	@Nullable Expression parse(String source, Method method, AnnotationProblems problems) {
		if (source.isBlank()) {
			return null;
		}
		SpelExpression expression;
		try {
			expression = this.parser.parseRaw(source);
		}
		catch (ParseException ex) {
			problems.add("key", "'" + source + "' is not a valid SpEL expression: " + ex.getMessage(),
					"write a SpEL expression over the parameters, such as \"#orderId\" or \"#p0\"");
			return null;
		}
		String[] names = this.parameterNames.getParameterNames(method);
		checkVariables(source, expression, method, names, problems);
		checkValueType(source, expression, method, names, problems);
		return expression;
	}

	private void checkVariables(String source, SpelExpression expression, Method method, String @Nullable [] names,
			AnnotationProblems problems) {
		Set<String> known = new HashSet<>(ROOT_VARIABLES);
		if (names != null) {
			known.addAll(Arrays.asList(names));
		}
		for (int i = 0; i < parameterCount(method); i++) {
			known.add("p" + i);
			known.add("a" + i);
		}
		Set<String> used = new HashSet<>();
		collectVariables(expression.getAST(), used);
		used.removeAll(known);
		for (String unknown : used) {
			problems.add("key",
					"'" + source + "' refers to #" + unknown + ", which is not a parameter of " + problems.method()
							+ ((names != null) ? " (parameters: " + String.join(", ", names) + ")"
									: " (parameter names were not compiled in)"),
					"refer to a parameter by name (compile with -parameters) or by position as #p0 or #a0");
		}
	}

	/**
	 * Check the type of a key that is exactly a parameter, such as {@code #order} or
	 * {@code #p0}: a type whose every value lacks a stable text fails every call.
	 */
	private void checkValueType(String source, SpelExpression expression, Method method, String @Nullable [] names,
			AnnotationProblems problems) {
		String variable = variableOf(expression.getAST());
		int index = (variable != null) ? parameterIndex(variable, method, names) : -1;
		Rejection rejection = (index >= 0) ? LockKeyValues.rejectionOf(ResolvableType.forMethodParameter(method, index))
				: null;
		if (rejection != null) {
			problems.add("key", "'" + source + "' evaluates to " + rejection.problem(), rejection.action());
		}
	}

	private static void collectVariables(SpelNode node, Set<String> variables) {
		String variable = variableOf(node);
		if (variable != null) {
			variables.add(variable);
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collectVariables(node.getChild(i), variables);
		}
	}

	/**
	 * Return the variable a node refers to, if it is a variable reference.
	 */
	private static @Nullable String variableOf(SpelNode node) {
		var matcher = VARIABLE.matcher(node.toStringAST());
		return matcher.matches() ? matcher.group(1) : null;
	}

	private static int parameterIndex(String variable, Method method, String @Nullable [] names) {
		int named = (names != null) ? Arrays.asList(names).indexOf(variable) : -1;
		if (named >= 0 || !POSITIONAL_VARIABLE.matcher(variable).matches()) {
			return named;
		}
		int position = Integer.parseInt(variable.substring(1));
		return (position < parameterCount(method)) ? position : -1;
	}

	/**
	 * Return how many parameters the method declares: a suspend function's last, its
	 * continuation, is not one of them.
	 */
	private static int parameterCount(Method method) {
		return method.getParameterCount() - (KotlinDetector.isSuspendingFunction(method) ? 1 : 0);
	}

}
