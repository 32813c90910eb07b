package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.stream.IntStream;

import dev.distlock.DistributedLockException;
import org.jspecify.annotations.Nullable;

/**
 * How the replies of a Redlock quorum of {@code n} independent Redis nodes decide a
 * command. A majority is {@code n / 2 + 1} of them; a command's replies are gathered
 * until they decide the outcome or every node answered, failed or timed out. A majority
 * that agrees decides a command one way, so many nodes that disagree or fail that no
 * majority can agree the other, and in between the nodes that did not answer decide, so
 * that the command fails as one that Redis did not answer does.
 */
final class Quorum {

	private final int nodes;

	private final Duration nodeTimeout;

	/**
	 * Create a quorum.
	 * @param nodes how many nodes there are
	 * @param commandTimeout how long a caller waits for a command; a node is waited for a
	 * tenth less, so that a quorum that cannot answer says so, naming its nodes, before
	 * the caller stops waiting
	 */
	Quorum(int nodes, Duration commandTimeout) {
		this.nodes = nodes;
		this.nodeTimeout = commandTimeout.minus(commandTimeout.dividedBy(10));
	}

	/**
	 * Return how many nodes make a majority: {@code n / 2 + 1}.
	 */
	int majority() {
		return this.nodes / 2 + 1;
	}

	/**
	 * Return whether so many nodes refused or failed that no majority can agree any more.
	 * @param against how many nodes refused or failed
	 */
	boolean isLost(int against) {
		return against > this.nodes - majority();
	}

	/**
	 * Gather the replies of the nodes to a command until they decide the outcome or every
	 * node settled. Each is waited for until nine tenths of the command timeout have
	 * passed since the operation the command is part of began (the caller waits for the
	 * whole operation that long); a reply that comes later still completes its own
	 * future, for what depends on it (the raise of the node's fencing key).
	 * @param replies one reply per node, in the order of the nodes
	 * @param decides whether the replies so far decide the outcome
	 * @param beganNanos when the operation began ({@link System#nanoTime()})
	 * @return the replies as they were when decided, or once all settled
	 */
	<T> CompletableFuture<Tally<T>> gather(List<CompletableFuture<T>> replies, Predicate<Tally<T>> decides,
			long beganNanos) {
		long waitNanos = Math.max(0, beganNanos + this.nodeTimeout.toNanos() - System.nanoTime());
		CompletableFuture<Tally<T>> outcome = new CompletableFuture<>();
		List<@Nullable T> answers = new ArrayList<>(Collections.nCopies(replies.size(), null));
		List<@Nullable Throwable> failures = new ArrayList<>(Collections.nCopies(replies.size(), null));
		Tally<T> tally = new Tally<>(answers, failures);
		// Not a monitor: the predicate may be anything, and a virtual thread must not pin
		Lock counting = new ReentrantLock();
		for (int i = 0; i < replies.size(); i++) {
			int node = i;
			// A copy: the reply itself may still come, for what follows it (a raise)
			replies.get(i)
				.copy()
				.orTimeout(waitNanos, TimeUnit.NANOSECONDS)
				.whenComplete((@Nullable T answer, @Nullable Throwable failure) -> {
					Tally<T> decided = null;
					counting.lock();
					try {
						if (failure != null) {
							failures.set(node, failure);
						}
						else {
							answers.set(node, answer);
						}
						if (!outcome.isDone() && (tally.settled() == replies.size() || decides.test(tally))) {
							decided = new Tally<>(new ArrayList<>(answers), new ArrayList<>(failures));
						}
					}
					finally {
						counting.unlock();
					}
					if (decided != null) {
						// Outside the lock: what depends on the outcome runs here
						outcome.complete(decided);
					}
				});
		}
		return outcome;
	}

	/**
	 * Return whether the replies decide a command: a majority agreed, or so many nodes
	 * disagreed or failed that no majority can agree.
	 * @param agrees whether an answer agrees
	 */
	<T> boolean isDecided(Tally<T> tally, Predicate<T> agrees) {
		return isAgreed(tally, agrees) || isLost(tally.count(agrees.negate()) + tally.failed());
	}

	/**
	 * Return whether a majority gave an answer that agrees.
	 */
	<T> boolean isAgreed(Tally<T> tally, Predicate<T> agrees) {
		return tally.count(agrees) >= majority();
	}

	/**
	 * Fail a command that the nodes which did not answer decide: so many failed that no
	 * majority can answer, or no majority agreed and one still can.
	 * @param what the command, for the message of its failure
	 */
	<T> void requireDecided(Tally<T> tally, Predicate<T> agrees, String what) {
		requireAnswered(tally, what);
		if (!isDecidedByAnswers(tally, agrees)) {
			throw undecided(tally, what);
		}
	}

	/**
	 * Return whether a majority agreed, or so many disagreed that no majority can.
	 */
	private <T> boolean isDecidedByAnswers(Tally<T> tally, Predicate<T> agrees) {
		return isAgreed(tally, agrees) || isLost(tally.count(agrees.negate()));
	}

	/**
	 * Fail a command that so many nodes failed that no majority can answer.
	 */
	void requireAnswered(Tally<?> tally, String what) {
		if (isLost(tally.failed())) {
			throw unreachable(tally, what);
		}
	}

	/**
	 * Gather the replies to a command that any answer confirms, such as a {@code PING} or
	 * a subscription: done once a majority answered.
	 * @param what the command, for the message of its failure
	 * @return the replies; failed unless a majority answered
	 */
	<T> CompletableFuture<Tally<T>> answered(List<CompletableFuture<T>> replies, String what) {
		return gatherFromMajority(replies, (tally) -> isDecided(tally, (answer) -> true), what);
	}

	/**
	 * Decide a release from each node's reply: held when a majority still held the hold,
	 * lost when so many no longer held it that no majority can.
	 * @param what the release, for the message of its failure
	 * @return whether the hold was still held; failed when the nodes that did not answer
	 * decide
	 */
	CompletableFuture<Boolean> released(List<CompletableFuture<Boolean>> replies, String what) {
		Predicate<Boolean> stillHeld = (held) -> held;
		return gather(replies, (tally) -> isDecided(tally, stillHeld), System.nanoTime()).thenApply((tally) -> {
			requireDecided(tally, stillHeld, what);
			return isAgreed(tally, stillHeld);
		});
	}

	/**
	 * Decide the renewal of a batch of holds from each node's replies: a hold is renewed
	 * when a majority renewed it, and lost when so many refused it that no majority can.
	 * A hold that neither is may still be held on a majority, some of whose nodes did not
	 * answer: the batch's renewal fails, and is tried again, as on one Redis.
	 * @param holds how many holds the batch has
	 * @return per hold, 1 when renewed, otherwise 0; failed when the nodes that did not
	 * answer decide
	 */
	CompletableFuture<List<Long>> renewed(List<CompletableFuture<List<Long>>> replies, int holds) {
		String what = "renew " + holds + " held locks";
		Predicate<Tally<List<Long>>> decides = (tally) -> IntStream.range(0, holds)
			.allMatch((hold) -> isDecidedByAnswers(tally, renews(hold)));
		return gatherFromMajority(replies, decides, what).thenApply((tally) -> {
			List<Long> renewed = new ArrayList<>(holds);
			for (int i = 0; i < holds; i++) {
				requireDecided(tally, renews(i), what);
				renewed.add(isAgreed(tally, renews(i)) ? 1L : 0L);
			}
			return renewed;
		});
	}

	/**
	 * Decide how long a lock stays taken on a majority of the nodes: the longest time
	 * that a majority of the answers reach, or -1 when so many nodes do not have it that
	 * no majority can.
	 * @param what the command, for the message of its failure
	 * @return the milliseconds; failed when the nodes that did not answer decide
	 */
	CompletableFuture<Long> lockState(List<CompletableFuture<Long>> replies, String what) {
		Predicate<Long> isTaken = (millis) -> millis >= 0;
		return gatherFromMajority(replies, (tally) -> false, what).thenApply((tally) -> {
			requireDecided(tally, isTaken, what);
			List<Long> taken = tally.given().filter(isTaken).sorted(Comparator.reverseOrder()).toList();
			return (taken.size() >= majority()) ? taken.get(majority() - 1) : -1L;
		});
	}

	/**
	 * Return the greatest of every node's reply to a command, once every node settled.
	 * @param what the command, for the message of its failure
	 * @return the greatest answer, or -1 when there is none; failed unless a majority
	 * answered
	 */
	CompletableFuture<Long> greatest(List<CompletableFuture<Long>> replies, String what) {
		return gatherFromMajority(replies, (tally) -> false, what)
			.thenApply((tally) -> tally.given().mapToLong(Long::longValue).max().orElse(-1));
	}

	/**
	 * Gather the replies to a command that begins now, and fail unless a majority of the
	 * nodes answered.
	 * @param what the command, for the message of its failure
	 */
	private <T> CompletableFuture<Tally<T>> gatherFromMajority(List<CompletableFuture<T>> replies,
			Predicate<Tally<T>> decided, String what) {
		return gather(replies, decided, System.nanoTime()).thenApply((tally) -> {
			if (tally.answered() < majority()) {
				throw unreachable(tally, what);
			}
			return tally;
		});
	}

	/**
	 * Return whether a node's replies to a batch renewed the given hold.
	 */
	private static Predicate<List<Long>> renews(int hold) {
		return (replies) -> replies.get(hold) == 1L;
	}

	/**
	 * Return the failure of a command that fewer than a majority of the nodes answered,
	 * ending with what became of the first node that failed: a node may have answered
	 * with an error, such as an ACL's refusal, rather than not at all.
	 * @param tally the replies
	 * @param what the command, for the message
	 */
	private DistributedLockException unreachable(Tally<?> tally, String what) {
		Throwable failure = tally.firstFailure();
		String said = (failure == null) ? "" : "; the first failure: " + describe(failure);
		return new DistributedLockException(
				"Only " + tally.answered() + " of " + this.nodes + " Redis nodes answered to " + what
						+ ", fewer than the majority of " + majority() + " (distlock.redlock.nodes)" + said,
				failure);
	}

	/**
	 * Describe a node's failure for a message: the time it was waited for when it did not
	 * answer, otherwise what it said.
	 */
	private String describe(Throwable failure) {
		if (failure instanceof TimeoutException) {
			return "no answer within " + this.nodeTimeout.toMillis() + " ms";
		}
		return Objects.requireNonNullElse(failure.getMessage(), failure.toString());
	}

	/**
	 * Return the failure of a command that a majority of the nodes answered, but that
	 * neither a majority agreed to nor so many refused that no majority can: the nodes
	 * that failed decide it.
	 * @param tally the replies
	 * @param what the command, for the message
	 */
	private DistributedLockException undecided(Tally<?> tally, String what) {
		return new DistributedLockException("Only " + tally.answered() + " of " + this.nodes
				+ " Redis nodes answered to " + what + ", too few to decide it without the " + tally.failed()
				+ " that did not (distlock.redlock.nodes)", tally.firstFailure());
	}

}
