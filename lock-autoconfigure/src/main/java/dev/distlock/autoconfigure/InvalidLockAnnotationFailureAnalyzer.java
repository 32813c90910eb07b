package dev.distlock.autoconfigure;

import java.util.stream.Collectors;

import dev.distlock.aop.InvalidLockAnnotationException;
import dev.distlock.aop.InvalidLockAnnotationException.Problem;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports {@code @DistributedLock}, {@code @DistributedConcurrencyLimit} and
 * {@code @LeaderOnly} annotations that cannot work as written: for each, the bean, the
 * method, the attribute, what is wrong and what to write instead.
 *
 * @since 0.1.0
 */
class InvalidLockAnnotationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockAnnotationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockAnnotationException cause) {
		String description = cause.getProblems()
			.stream()
			.map((problem) -> "- " + problem)
			.collect(Collectors.joining(System.lineSeparator(),
					"Invalid " + annotations(cause) + " annotations:" + System.lineSeparator(), ""));
		String action = cause.getProblems()
			.stream()
			.map(InvalidLockAnnotationFailureAnalyzer::action)
			.collect(Collectors.joining(System.lineSeparator(), "Correct the annotations:" + System.lineSeparator(),
					""));
		return new FailureAnalysis(description, action, cause);
	}

	/**
	 * Name the annotations that have problems, such as {@code @DistributedLock}.
	 */
	private static String annotations(InvalidLockAnnotationException cause) {
		return cause.getProblems().stream().map(Problem::annotation).distinct().collect(Collectors.joining(" and "));
	}

	private static String action(Problem problem) {
		return "- " + problem.method() + ", '" + problem.attribute() + "': " + problem.action();
	}

}
