package dev.distlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * The replies of the nodes of a quorum to one command, as far as they came: one answer or
 * failure per node, in the order of the nodes. A node whose answer is {@code null} counts
 * as not answered yet.
 *
 * @param <T> the type of an answer
 */
final class Tally<T> {

	private final List<@Nullable T> answers;

	private final List<@Nullable Throwable> failures;

	private Tally(List<@Nullable T> answers, List<@Nullable Throwable> failures) {
		this.answers = answers;
		this.failures = failures;
	}

	static <T> Tally<T> of(int nodes) {
		List<@Nullable T> answers = new ArrayList<>(nodes);
		List<@Nullable Throwable> failures = new ArrayList<>(nodes);
		for (int i = 0; i < nodes; i++) {
			answers.add(null);
			failures.add(null);
		}
		return new Tally<>(answers, failures);
	}

	void record(int node, @Nullable T answer, @Nullable Throwable failure) {
		if (failure != null) {
			this.failures.set(node, failure);
		}
		else {
			this.answers.set(node, answer);
		}
	}

	Tally<T> copy() {
		return new Tally<>(new ArrayList<>(this.answers), new ArrayList<>(this.failures));
	}

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
		return (int) this.failures.stream().filter((failure) -> failure != null).count();
	}

	int count(Predicate<T> matches) {
		return nodesWhere(matches).size();
	}

	/**
	 * Return the nodes, by position, that gave an answer that matches.
	 */
	List<Integer> nodesWhere(Predicate<T> matches) {
		List<Integer> nodes = new ArrayList<>();
		for (int i = 0; i < this.answers.size(); i++) {
			T answer = this.answers.get(i);
			if (answer != null && matches.test(answer)) {
				nodes.add(i);
			}
		}
		return nodes;
	}

	/**
	 * Return the answers given, in the order of the nodes.
	 */
	List<T> answers() {
		List<T> given = new ArrayList<>();
		for (T answer : this.answers) {
			if (answer != null) {
				given.add(answer);
			}
		}
		return given;
	}

	@Nullable Throwable firstFailure() {
		for (Throwable failure : this.failures) {
			if (failure != null) {
				return failure;
			}
		}
		return null;
	}

}
