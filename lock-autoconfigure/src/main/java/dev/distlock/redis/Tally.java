package dev.distlock.redis;

import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * The replies of the nodes of a quorum to one command, as far as they came.
 *
 * @param <T> the type of an answer
 * @param answers each node's answer, in the order of the nodes; {@code null} for a node
 * that did not answer (yet)
 * @param failures each node's failure, in the order of the nodes; {@code null} for a node
 * that did not fail
 */
record Tally<T>(List<@Nullable T> answers, List<@Nullable Throwable> failures) {

	/**
	 * Return how many nodes answered or failed.
	 */
	int settled() {
		return answered() + failed();
	}

	int answered() {
		return count((answer) -> true);
	}

	int failed() {
		return (int) this.failures.stream().filter(Objects::nonNull).count();
	}

	int count(Predicate<T> matches) {
		return (int) given().filter(matches).count();
	}

	/**
	 * Return the answers given, in the order of the nodes.
	 */
	Stream<T> given() {
		return this.answers.stream().filter(Objects::nonNull);
	}

	@Nullable Throwable firstFailure() {
		return this.failures.stream().filter(Objects::nonNull).findFirst().orElse(null);
	}

}
