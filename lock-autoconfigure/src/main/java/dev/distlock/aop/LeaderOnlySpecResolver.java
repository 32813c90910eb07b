package dev.distlock.aop;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.LeaderOnly;
import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodClassKey;
import org.springframework.core.env.PropertyResolver;

/**
 * Resolves and checks {@link LeaderOnly} annotations into {@link LeaderOnlySpec}s, once
 * per method and target class: the name must be a leadership the instance campaigns for,
 * and a call must be able to be skipped.
 */
final class LeaderOnlySpecResolver {

	private final PropertyResolver placeholders;

	private final Set<String> leadershipNames;

	private final Map<MethodClassKey, LeaderOnlySpec> specs = new ConcurrentHashMap<>();

	/**
	 * Create a resolver.
	 * @param placeholders resolves {@code ${...}} in names
	 * @param leadershipNames the names of the leaderships the instance campaigns for
	 * ({@code distlock.leader.names})
	 */
	LeaderOnlySpecResolver(PropertyResolver placeholders, Set<String> leadershipNames) {
		this.placeholders = placeholders;
		this.leadershipNames = Set.copyOf(leadershipNames);
	}

	/**
	 * Return the spec of an annotated method called on the given target class, of the
	 * most specific method: the one the target class implements.
	 * @param method the method
	 * @param targetClass the class of the target, or {@code null} for the declaring class
	 * @return the spec
	 * @throws InvalidLockAnnotationException if the annotation cannot work as written
	 */
	LeaderOnlySpec resolve(Method method, @Nullable Class<?> targetClass) {
		return this.specs.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> create(method, targetClass));
	}

	private LeaderOnlySpec create(Method calledMethod, @Nullable Class<?> targetClass) {
		AnnotatedTarget annotated = AnnotatedTarget.of(calledMethod, targetClass, LeaderOnly.class);
		Method method = annotated.method();
		AnnotationProblems problems = annotated.problems();
		String name = name(annotated.annotation().getString("value"), problems);
		ResultKind resultKind = ResultKind.of(method);
		problems.checkSkippable("value", method, resultKind, "a call on an instance that does not lead is skipped, and",
				"return nothing");
		problems.throwIfAny();
		return new LeaderOnlySpec(method, annotated.description(), name, resultKind);
	}

	private String name(String value, AnnotationProblems problems) {
		String name;
		try {
			name = this.placeholders.resolveRequiredPlaceholders(value);
		}
		catch (IllegalArgumentException ex) {
			problems.add("value", ex.getMessage(), "define the property or write the name as a literal");
			return value;
		}
		if (!this.leadershipNames.contains(name)) {
			problems.add("value", "'" + name + "' is not a leadership this instance campaigns for",
					"add it to distlock.leader.names" + (this.leadershipNames.isEmpty() ? ""
							: ", which names " + String.join(", ", this.leadershipNames.stream().sorted().toList())));
		}
		return name;
	}

}
