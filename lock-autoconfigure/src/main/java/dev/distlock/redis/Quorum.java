package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

import dev.distlock.DistributedLockException;
import dev.distlock.redis.renewal.LeaseTerms;
import org.jspecify.annotations.Nullable;

/**
 * The arithmetic of a Redlock quorum of {@code n} independent Redis nodes: a majority is
 * {@code n / 2 + 1} of them; a command's replies are gathered until they decide the
 * outcome or every node answered, failed or timed out; a lock's key lives its lease plus
 * the drift allowance on each node; a refused attempt is retried after a random delay.
 */
final class Quorum {

	/** The longest random delay before retrying an attempt that split the nodes. */
	static final long MAX_RETRY_DELAY_MILLIS = 50;

	/**
	 * How far ahead of the client's clock the fencing token it proposes is: a node takes
	 * the proposal only up to twice that ahead of its own clock
	 * ({@code token-floor.lua}).
	 */
	static final Duration TOKEN_FLOOR_LEAD = Duration.ofMillis(10);

	private final int nodes;

	private final RedlockSettings settings;

	private final Duration nodeTimeout;

	/**
	 * Create the arithmetic of a quorum.
	 * @param nodes how many nodes there are
	 * @param settings how to allow for drift
	 * @param commandTimeout how long a caller waits for a command; a node is waited for a
	 * tenth less, so that a quorum that cannot answer says so, naming its nodes, before
	 * the caller stops waiting
	 */
	Quorum(int nodes, RedlockSettings settings, Duration commandTimeout) {
		this.nodes = nodes;
		this.settings = settings;
		this.nodeTimeout = commandTimeout.minus(commandTimeout.dividedBy(10));
	}

	/**
	 * Return how much longer than the command timeout a caller waits for a quorum's
	 * command: half of it. The quorum settles every command within nine tenths of the
	 * command timeout, failing with the nodes it lacked; the caller's own timeout only
	 * backs that up, and must not overtake it when the timer that ends the nodes' wait
	 * runs late on a busy machine.
	 * @param commandTimeout how long a caller waits for a command
	 */
	static Duration callerGrace(Duration commandTimeout) {
		return commandTimeout.dividedBy(2);
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
	 * Return the terms a node is sent for a hold with the given terms: the lease plus its
	 * drift allowance, so that the key outlives the time the holder counts on it.
	 */
	LeaseTerms onNodes(LeaseTerms terms) {
		return new LeaseTerms(terms.leaseMillis() + this.settings.driftMillis(terms.leaseMillis()),
				terms.delayMillis());
	}

	/**
	 * Return whether a hold whose acquisition was sent at the given time is still valid
	 * now: less than its lease has passed.
	 */
	boolean isValid(long sentNanos, long leaseMillis) {
		return System.nanoTime() - sentNanos < TimeUnit.MILLISECONDS.toNanos(leaseMillis);
	}

	/**
	 * Return a random delay before an attempt that split the nodes is retried, so that
	 * rivals that split them do not retry in step: minus 1 to
	 * {@value #MAX_RETRY_DELAY_MILLIS} ms, as the acquire script's refusals are.
	 */
	static long retryReply() {
		return -ThreadLocalRandom.current().nextLong(1, MAX_RETRY_DELAY_MILLIS + 1);
	}

	/**
	 * Return the fencing token that the client proposes to the nodes of an attempt as the
	 * least they issue: its clock in microseconds since the epoch, plus
	 * {@link #TOKEN_FLOOR_LEAD}. Nodes whose clocks are less than that ahead of the
	 * client's, and whose last tokens are below it, all issue it, so that a majority's
	 * fencing keys hold the hold's token without a write-back. The nodes' tokens still
	 * increase whatever the clocks: the floor only ever raises a token.
	 */
	static long tokenFloor() {
		Instant now = Instant.now();
		return TimeUnit.SECONDS.toMicros(now.getEpochSecond()) + TimeUnit.NANOSECONDS.toMicros(now.getNano())
				+ TimeUnit.MILLISECONDS.toMicros(TOKEN_FLOOR_LEAD.toMillis());
	}

	/**
	 * Gather the replies of the nodes to one command, each waited for at most nine tenths
	 * of the command timeout, until they decide the outcome or every node settled. A
	 * reply that comes later still completes its own future, for what depends on it (the
	 * raise of the node's fencing key).
	 * @param replies one reply per node, in the order of the nodes
	 * @param decided whether the replies so far decide the outcome
	 * @return the replies as they were when decided, or once all settled
	 */
	<T> CompletableFuture<Tally<T>> gather(List<CompletableFuture<T>> replies, Predicate<Tally<T>> decided) {
		return gather(replies, decided, System.nanoTime());
	}

	/**
	 * Gather the replies of the nodes to a command that is part of an operation, like
	 * {@link #gather(List, Predicate)}, each waited for at most until nine tenths of the
	 * command timeout have passed since the operation began: the caller waits for the
	 * whole operation that long.
	 * @param replies one reply per node, in the order of the nodes
	 * @param decided whether the replies so far decide the outcome
	 * @param beganNanos when the operation began ({@link System#nanoTime()})
	 * @return the replies as they were when decided, or once all settled
	 */
	<T> CompletableFuture<Tally<T>> gather(List<CompletableFuture<T>> replies, Predicate<Tally<T>> decided,
			long beganNanos) {
		long waitNanos = Math.max(0, beganNanos + this.nodeTimeout.toNanos() - System.nanoTime());
		CompletableFuture<Tally<T>> outcome = new CompletableFuture<>();
		Tally<T> tally = Tally.of(replies.size());
		// Not a monitor: the predicate may be anything, and a virtual thread must not pin
		Lock counting = new ReentrantLock();
		for (int i = 0; i < replies.size(); i++) {
			int node = i;
			// A copy: the reply itself may still come, for what follows it (a raise)
			replies.get(i)
				.copy()
				.orTimeout(waitNanos, TimeUnit.NANOSECONDS)
				.whenComplete((@Nullable T answer, @Nullable Throwable failure) -> {
					Tally<T> outcomeTally = null;
					counting.lock();
					try {
						tally.record(node, answer, failure);
						if (!outcome.isDone() && (tally.settled() == replies.size() || decided.test(tally))) {
							outcomeTally = tally.copy();
						}
					}
					finally {
						counting.unlock();
					}
					if (outcomeTally != null) {
						// Outside the lock: what depends on the outcome runs here
						outcome.complete(outcomeTally);
					}
				});
		}
		return outcome;
	}

	/**
	 * Return the failure of a command that fewer than a majority of the nodes answered,
	 * ending with what became of the first node that failed: a node may have answered
	 * with an error, such as an ACL's refusal, rather than not at all.
	 * @param tally the replies
	 * @param what the command, for the message
	 */
	DistributedLockException unreachable(Tally<?> tally, String what) {
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
	DistributedLockException undecided(Tally<?> tally, String what) {
		return new DistributedLockException("Only " + tally.answered() + " of " + this.nodes
				+ " Redis nodes answered to " + what + ", too few to decide it without the " + tally.failed()
				+ " that did not (distlock.redlock.nodes)", tally.firstFailure());
	}

}
