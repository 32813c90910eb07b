package dev.distlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * How the replies of the nodes of a Redlock quorum decide a command: a majority that
 * agrees decides it one way, so many nodes that disagree or fail that no majority can
 * agree the other, and in between the nodes that did not answer decide, so that the
 * command fails as one that Redis did not answer does.
 */
final class QuorumRules {

	private final Quorum quorum;

	QuorumRules(Quorum quorum) {
		this.quorum = quorum;
	}

	/**
	 * Return whether the replies decide a command: a majority agreed, or so many nodes
	 * disagreed or failed that no majority can agree.
	 * @param agrees whether an answer agrees
	 */
	<T> boolean isDecided(Tally<T> tally, Predicate<T> agrees) {
		return tally.count(agrees) >= this.quorum.majority()
				|| this.quorum.isLost(tally.count(agrees.negate()) + tally.failed());
	}

	/**
	 * Return the replies, unless fewer than a majority of the nodes answered.
	 * @param what the command, for the message of its failure
	 * @throws dev.distlock.DistributedLockException if fewer than a majority answered
	 */
	<T> Tally<T> requireMajority(Tally<T> tally, String what) {
		if (tally.answered() < this.quorum.majority()) {
			throw this.quorum.unreachable(tally, what);
		}
		return tally;
	}

	/**
	 * Gather the replies to a command that any answer confirms, such as a {@code PING} or
	 * a subscription: done once a majority answered.
	 * @param what the command, for the message of its failure
	 * @return the replies; failed unless a majority answered
	 */
	<T> CompletableFuture<Tally<T>> answered(List<CompletableFuture<T>> replies, String what) {
		return this.quorum.gather(replies, (tally) -> isDecided(tally, (answer) -> true))
			.thenApply((tally) -> requireMajority(tally, what));
	}

	/**
	 * Decide a release from each node's reply: held when a majority still held the hold,
	 * lost when so many no longer held it that no majority can.
	 * @param what the release, for the message of its failure
	 * @return whether the hold was still held; failed when the nodes that did not answer
	 * decide
	 */
	CompletableFuture<Boolean> released(List<CompletableFuture<Boolean>> replies, String what) {
		return this.quorum.gather(replies, (tally) -> isDecided(tally, (held) -> held)).thenApply((tally) -> {
			if (tally.count((held) -> held) >= this.quorum.majority()) {
				return true;
			}
			if (this.quorum.isLost(tally.failed())) {
				throw this.quorum.unreachable(tally, what);
			}
			if (!this.quorum.isLost(tally.count((held) -> !held))) {
				// Still held on a majority, as far as the nodes that answered tell
				throw this.quorum.undecided(tally, what);
			}
			return false;
		});
	}

	/**
	 * Decide the renewal of a batch of holds from each node's replies: a hold is renewed
	 * when a majority renewed it, and lost when so many refused it that no majority can.
	 * @param holds how many holds the batch has
	 * @return per hold, 1 when renewed, otherwise 0; failed when the nodes that did not
	 * answer decide
	 */
	CompletableFuture<List<Long>> renewed(List<CompletableFuture<List<Long>>> replies, int holds) {
		String what = "renew " + holds + " held locks";
		return this.quorum.gather(replies, (tally) -> isRenewalDecided(tally, holds)).thenApply((tally) -> {
			requireMajority(tally, what);
			if (!isRenewalDecided(tally, holds)) {
				throw this.quorum.undecided(tally, what);
			}
			List<Long> renewed = new ArrayList<>(holds);
			for (int i = 0; i < holds; i++) {
				renewed.add((renewals(tally, i) >= this.quorum.majority()) ? 1L : 0L);
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
		return this.quorum.gather(replies, (tally) -> false).thenApply((tally) -> {
			requireMajority(tally, what);
			List<Long> taken = new ArrayList<>(tally.answers().stream().filter((millis) -> millis >= 0).toList());
			if (taken.size() >= this.quorum.majority()) {
				taken.sort((a, b) -> Long.compare(b, a));
				return taken.get(this.quorum.majority() - 1);
			}
			if (!this.quorum.isLost(tally.count((millis) -> millis < 0))) {
				throw this.quorum.undecided(tally, what);
			}
			return -1L;
		});
	}

	/**
	 * Return the greatest of every node's reply to a command, once every node settled.
	 * @param what the command, for the message of its failure
	 * @return the greatest answer, or -1 when there is none; failed unless a majority
	 * answered
	 */
	CompletableFuture<Long> greatest(List<CompletableFuture<Long>> replies, String what) {
		return this.quorum.gather(replies, (tally) -> false)
			.thenApply((tally) -> requireMajority(tally, what).answers()
				.stream()
				.mapToLong(Long::longValue)
				.max()
				.orElse(-1));
	}

	/**
	 * Return whether the renewal of every hold of a batch is decided: renewed by a
	 * majority of the nodes, or refused by so many that no majority can renew it. A hold
	 * that neither is may still be held on a majority, some of whose nodes did not
	 * answer: its renewal failed, and is tried again, as on one Redis.
	 */
	private boolean isRenewalDecided(Tally<List<Long>> tally, int holds) {
		for (int i = 0; i < holds; i++) {
			int renewed = renewals(tally, i);
			if (renewed < this.quorum.majority() && !this.quorum.isLost(tally.answered() - renewed)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Return how many nodes renewed the given hold of a batch.
	 */
	private static int renewals(Tally<List<Long>> tally, int hold) {
		return tally.count((replies) -> replies.get(hold) == 1L);
	}

}
