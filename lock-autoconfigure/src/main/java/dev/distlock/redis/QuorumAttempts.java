package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

import dev.distlock.LockObserver;
import dev.distlock.redis.connection.ReplicatedReply;
import dev.distlock.redis.renewal.LeaseTerms;
import org.jspecify.annotations.Nullable;

/**
 * Decides an attempt to take a lock on a Redlock quorum (an acquisition or a local
 * hand-over) from the nodes' grants: held when a majority granted it and raised their
 * fencing keys to the greatest fencing token they issued, within the lease; otherwise
 * released on every node but those that refused it, where the caller keeps its place in
 * the queue, and retried after a random delay when it split the nodes, or when the lock's
 * key runs out on the first node that refused it. The client proposes the least fencing
 * token the nodes issue ({@link #tokenFloor()}). Each node's reply is told to the
 * registry's {@link LockObserver}, by the node's position.
 */
final class QuorumAttempts {

	/** The longest random delay before retrying an attempt that split the nodes. */
	private static final long MAX_RETRY_DELAY_MILLIS = 50;

	/**
	 * How far ahead of the client's clock the fencing token it proposes is: a node takes
	 * the proposal only up to twice that ahead of its own clock
	 * ({@code token-floor.lua}).
	 */
	static final Duration TOKEN_FLOOR_LEAD = Duration.ofMillis(10);

	/** Whether a node's reply to an attempt grants it: a fencing token. */
	private static final Predicate<Long> GRANTED = (reply) -> reply > 0;

	private final List<QuorumNode> nodes;

	private final Quorum quorum;

	private final LockObserver observer;

	QuorumAttempts(List<QuorumNode> nodes, Quorum quorum, LockObserver observer) {
		this.nodes = nodes;
		this.quorum = quorum;
		this.observer = observer;
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
	 * Decide an acquisition from the nodes' grants.
	 * @return the grant: the fencing token when held, otherwise minus the milliseconds
	 * before a retry is worth it
	 */
	CompletableFuture<ReplicatedReply> acquire(Attempt attempt, List<CompletableFuture<ReplicatedReply>> grants) {
		String what = "acquire lock '" + attempt.id().name + "'";
		return hold(attempt, grants, (tally) -> this.quorum.requireAnswered(tally, what));
	}

	/**
	 * Decide a local hand-over from the nodes' grants, as an acquisition, unless the
	 * nodes that did not answer decide whether the current holder still held the lock:
	 * then fail, as a hand-over that Redis did not answer does, rather than report the
	 * hold lost.
	 * @return the grant: the fencing token when held, otherwise 0 or minus the
	 * milliseconds before a retry is worth it
	 */
	CompletableFuture<ReplicatedReply> handOver(Attempt attempt, List<CompletableFuture<ReplicatedReply>> grants) {
		String what = "hand lock '" + attempt.id().name + "' over";
		return hold(attempt, grants, (tally) -> this.quorum.requireDecided(tally, GRANTED, what));
	}

	/**
	 * Decide an attempt from the nodes' grants: held when a majority granted it and then
	 * raised their fencing keys to the greatest token they issued, both within the lease;
	 * otherwise refused, where a node that granted but found the hold gone when raising
	 * its fencing key counts as a refusal.
	 * @param grants each node's grant
	 * @param check fails a refused attempt that the nodes which did not answer decide
	 */
	private CompletableFuture<ReplicatedReply> hold(Attempt attempt, List<CompletableFuture<ReplicatedReply>> grants,
			Consumer<Tally<Long>> check) {
		List<CompletableFuture<Long>> replies = observed(grants).stream()
			.map((grant) -> grant.thenApply(ReplicatedReply::reply))
			.toList();
		return this.quorum.gather(replies, this::decidesAttempt, attempt.sentNanos()).thenCompose((tally) -> {
			if (isHeld(attempt, tally)) {
				long fencingToken = tally.given().mapToLong(Long::longValue).max().orElseThrow();
				List<CompletableFuture<Long>> raised = raiseFences(attempt, fencingToken, replies);
				if (this.quorum.isAgreed(tally, (reply) -> reply == fencingToken)) {
					// A majority's fencing keys hold it already; the others are raised
					// all the same, since a later renewal majority may include them
					return CompletableFuture.completedFuture(new ReplicatedReply(fencingToken, 0));
				}
				return this.quorum.gather(raised, this::decidesAttempt, attempt.sentNanos())
					.thenApply((raisedTally) -> isHeld(attempt, raisedTally) ? new ReplicatedReply(fencingToken, 0)
							: refused(attempt, raisedTally, check));
			}
			return CompletableFuture.completedFuture(refused(attempt, tally, check));
		});
	}

	/**
	 * Raise the fencing keys of the nodes that grant a hold below its fencing token to
	 * it, each once it granted, also those whose grant comes after the hold was decided:
	 * the hold counts once a majority's fencing keys hold at least the token (those that
	 * issued it hold it already) within the lease, and a later majority that renews it
	 * may include any node that granted it. A node that did not answer the raise counts
	 * as one that did not answer, one that found the hold gone as one that refused it.
	 * @param replies each node's reply to the attempt
	 * @return each node's reply once raised: its grant, 0 when it found the hold gone
	 */
	private List<CompletableFuture<Long>> raiseFences(Attempt attempt, long fencingToken,
			List<CompletableFuture<Long>> replies) {
		List<CompletableFuture<Long>> raised = new ArrayList<>(replies.size());
		for (int i = 0; i < replies.size(); i++) {
			QuorumNode node = this.nodes.get(i);
			raised.add(replies.get(i)
				.thenCompose((reply) -> (reply <= 0 || reply >= fencingToken) ? CompletableFuture.completedFuture(reply)
						: node
							.send((commands) -> commands.raiseFence(attempt.id(), attempt.token(), fencingToken,
									attempt.sent()))
							.thenApply((held) -> held ? reply : 0L)));
		}
		return raised;
	}

	/**
	 * Return whether a majority granted an attempt, and its lease is still valid: less
	 * than the lease has passed since the attempt was sent.
	 */
	private boolean isHeld(Attempt attempt, Tally<Long> tally) {
		return this.quorum.isAgreed(tally, GRANTED)
				&& System.nanoTime() - attempt.sentNanos() < TimeUnit.MILLISECONDS.toNanos(attempt.leaseMillis());
	}

	/**
	 * Return whether the replies to an attempt decide it: a majority granted it, or so
	 * many nodes refused it or did not answer that no majority can.
	 */
	private boolean decidesAttempt(Tally<Long> tally) {
		return this.quorum.isDecided(tally, GRANTED);
	}

	/**
	 * Give back an attempt that no majority granted on every node, and tell the caller
	 * when to retry: after a random delay when some nodes granted it, otherwise when the
	 * lock's key runs out on the first node that refused it.
	 * @param check fails the attempt when the nodes which did not answer decide it
	 */
	private ReplicatedReply refused(Attempt attempt, Tally<Long> tally, Consumer<Tally<Long>> check) {
		releaseUnlessRefused(attempt, tally);
		check.accept(tally);
		long shortestTtl = tally.given().filter((reply) -> reply < 0).mapToLong((reply) -> -reply).min().orElse(0);
		boolean split = tally.given().anyMatch(GRANTED);
		return new ReplicatedReply((split || shortestTtl == 0) ? retryReply() : -shortestTtl, 0);
	}

	/**
	 * Return a random delay before an attempt that split the nodes is retried, so that
	 * rivals that split them do not retry in step: minus 1 to
	 * {@value #MAX_RETRY_DELAY_MILLIS} ms, as the acquire script's refusals are.
	 */
	private static long retryReply() {
		return -ThreadLocalRandom.current().nextLong(1, MAX_RETRY_DELAY_MILLIS + 1);
	}

	/**
	 * Free what an attempt that does not count took: release its token on every node but
	 * those that refused it (and keep it in their queues), also where it is not known
	 * whether the attempt got through.
	 */
	private void releaseUnlessRefused(Attempt attempt, Tally<Long> grants) {
		for (int i = 0; i < this.nodes.size(); i++) {
			Long grant = grants.answers().get(i);
			if (grant == null || GRANTED.test(grant)) {
				this.nodes.get(i).send((node) -> node.release(attempt.id(), attempt.token(), 0, 0, false));
			}
		}
	}

	/**
	 * Tell the observer each node's reply to an attempt to take a lock once it came, or
	 * failed, as after the driver's command timeout.
	 * @param grants each node's grant
	 * @return the same grants
	 */
	private List<CompletableFuture<ReplicatedReply>> observed(List<CompletableFuture<ReplicatedReply>> grants) {
		if (this.observer == LockObserver.NONE) {
			return grants;
		}
		for (int i = 0; i < grants.size(); i++) {
			int node = i;
			grants.get(i)
				.whenComplete((@Nullable ReplicatedReply grant, @Nullable Throwable failure) -> this.observer
					.nodeReplied(node, nodeReply(grant, failure)));
		}
		return grants;
	}

	/**
	 * Return what a node did with an attempt to take a lock, from its grant or failure.
	 */
	private static LockObserver.NodeReply nodeReply(@Nullable ReplicatedReply grant, @Nullable Throwable failure) {
		if (failure != null || grant == null) {
			return LockObserver.NodeReply.FAILED;
		}
		return (grant.reply() > 0) ? LockObserver.NodeReply.GRANTED : LockObserver.NodeReply.REFUSED;
	}

	/**
	 * An attempt sent to the nodes, as its hold is decided.
	 *
	 * @param id the lock
	 * @param token the token the attempt is made under
	 * @param sent the terms the nodes were sent
	 * @param leaseMillis the lease the holder counts
	 * @param sentNanos when the attempt was sent
	 */
	record Attempt(LockId id, String token, LeaseTerms sent, long leaseMillis, long sentNanos) {

	}

}
