package dev.distlock.redis;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.distlock.HoldKind;
import dev.distlock.LockObserver;
import dev.distlock.redis.RenewScripts.Renewal;
import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.renewal.LeaseTerms;
import dev.distlock.thread.DaemonThreads;
import org.jspecify.annotations.Nullable;

/**
 * Runs the lock scripts on a quorum of independent Redis nodes (Redlock), each through
 * the single-node {@link RedisLockCommands} of its own connection, in parallel, and
 * combines their replies: a lock is granted when a majority of the nodes granted it and
 * raised their fencing keys to the greatest fencing token they issued, within the lease;
 * otherwise it is released on every node but those that refused it, where the caller
 * keeps its place in the queue. Releases and give-backs go to every node, also those that
 * did not grant. A renewal renews a hold that a majority renewed; a release or renewal
 * finds a hold lost only when so many nodes refused it that no majority can hold it, and
 * fails, as a command Redis did not answer, when the nodes that did not answer decide.
 *
 * <p>
 * A node's key lives the lease plus the drift allowance ({@link Quorum#onNodes}), while
 * the holder counts the lease from before it sent the attempt. A node that has been up
 * for less than the longer of that life and the settings' own takes nothing: it may have
 * lost the holds it granted before a restart. Waiters queue on every node and hear the
 * grants of every node; since the nodes' queues may grant the lock to different waiters,
 * an attempt that split the nodes is retried after a random delay, one refused by a
 * majority when the lock's key runs out on the first node that refused it, or at the
 * latest at the next grant or re-check.
 *
 * <p>
 * Each node's reply to an attempt to take a lock (an acquisition or a local hand-over) is
 * told to the registry's {@link LockObserver}, by the node's position.
 *
 * <p>
 * Every command of the single-node class is overridden; the class itself is built on a
 * connection that refuses every command, so that a command without a quorum rule fails
 * rather than run on one node.
 */
final class RedlockCommands extends RedisLockCommands {

	private final List<QuorumNode> nodes;

	private final ExecutorService connector = Executors
		.newCachedThreadPool(DaemonThreads.named("distlock-redlock-connect"));

	private final Quorum quorum;

	private final LeaseTerms defaultTerms;

	private final LockObserver observer;

	/**
	 * Create the commands of a quorum.
	 * @param connections the nodes' connections, in order
	 * @param redlock how to allow for drift
	 * @param settings the registry's settings
	 * @param observer told each node's reply to every attempt to take a lock
	 */
	RedlockCommands(List<LockConnection> connections, RedlockSettings redlock, RedisLockSettings settings,
			LockObserver observer) {
		super(refusing(), settings);
		this.nodes = connections.stream()
			.map((connection) -> new QuorumNode(new QuorumNodeCommands(connection, settings), this.connector))
			.toList();
		this.quorum = new Quorum(this.nodes.size(), redlock, settings.commandTimeout());
		this.defaultTerms = new LeaseTerms(settings.leaseTime().toMillis(), settings.lockDelay().toMillis());
		this.observer = observer;
	}

	@Override
	CompletableFuture<Grant> acquire(LockId id, String token, LeaseTerms terms, Queueing queueing) {
		long sentNanos = System.nanoTime();
		LeaseTerms sent = this.quorum.onNodes(terms);
		long minUptime = Math.max(sent.keyMillis(), this.quorum.onNodes(this.defaultTerms).keyMillis());
		long tokenFloor = Quorum.tokenFloor();
		return hold(new Attempt(id, token, sent, terms.leaseMillis(), sentNanos),
				observed(eachReply((node) -> node.acquireOnQuorum(id, token, sent, queueing, minUptime, tokenFloor))),
				(tally) -> refused(id, token, tally, "acquire lock '" + id.name + "'"));
	}

	@Override
	CompletableFuture<Grant> transfer(LockId id, String token, LeaseTerms terms, String nextToken, LeaseTerms nextTerms,
			String waiterToken) {
		long sentNanos = System.nanoTime();
		LeaseTerms sent = this.quorum.onNodes(terms);
		LeaseTerms nextSent = this.quorum.onNodes(nextTerms);
		long tokenFloor = Quorum.tokenFloor();
		return hold(new Attempt(id, nextToken, nextSent, nextTerms.leaseMillis(), sentNanos), observed(eachReply(
				(node) -> node.transferOnQuorum(id, token, sent, nextToken, nextSent, waiterToken, tokenFloor))),
				(tally) -> refusedHandOver(id, nextToken, tally))
			.thenApply((grant) -> {
				if (grant.reply() <= 0) {
					// Not handed over: free what the current holder still has
					giveBack(id, token, terms);
				}
				return grant;
			});
	}

	@Override
	CompletableFuture<Grant> acquireShare(SharedAttempt attempt, String token, LeaseTerms terms, Queueing queueing) {
		throw RedisLockRegistry.notOnRedlock("shared holds");
	}

	@Override
	CompletableFuture<Boolean> releaseShare(LockId id, HoldKind kind, String token, long delayMillis,
			boolean leaseOver) {
		throw RedisLockRegistry.notOnRedlock("shared holds");
	}

	@Override
	void giveBack(LockId id, String token, LeaseTerms terms) {
		LeaseTerms sent = this.quorum.onNodes(terms);
		each((node) -> {
			node.giveBack(id, token, sent);
			return null;
		});
	}

	@Override
	void giveBack(LockId id, HoldKind kind, String token, LeaseTerms terms) {
		throw RedisLockRegistry.notOnRedlock("shared holds");
	}

	@Override
	CompletableFuture<Boolean> release(LockId id, String token, long keepMillis, long delayMillis, boolean leaseOver) {
		return this.quorum.gather(eachReply((node) -> node.release(id, token, keepMillis, delayMillis, leaseOver)),
				(tally) -> tally.count((held) -> held) >= this.quorum.majority()
						|| this.quorum.isLost(tally.count((held) -> !held) + tally.failed()))
			.thenApply((tally) -> {
				if (tally.count((held) -> held) >= this.quorum.majority()) {
					return true;
				}
				if (this.quorum.isLost(tally.failed())) {
					throw this.quorum.unreachable(tally, "release lock '" + id.name + "'");
				}
				if (!this.quorum.isLost(tally.count((held) -> !held))) {
					// Still held on a majority, as far as the nodes that answered tell
					throw this.quorum.undecided(tally, "release lock '" + id.name + "'");
				}
				return false;
			});
	}

	@Override
	List<CompletableFuture<List<Long>>> renew(List<Renewal> batches) {
		List<Renewal> sent = batches.stream()
			.map((batch) -> new Renewal(batch.kind(), batch.ids(), batch.tokens(), this.quorum.onNodes(batch.terms())))
			.toList();
		List<CompletableFuture<List<CompletableFuture<List<Long>>>>> perNode = each((node) -> node.renew(sent));
		List<CompletableFuture<List<Long>>> combined = new ArrayList<>(batches.size());
		for (int b = 0; b < batches.size(); b++) {
			int batch = b;
			int holds = batches.get(b).ids().size();
			combined.add(
					this.quorum
						.gather(perNode.stream()
							.map((replies) -> replies.thenCompose((sentBatches) -> sentBatches.get(batch)))
							.toList(), (tally) -> isDecided(tally, holds))
						.thenApply((tally) -> {
							if (tally.answered() < this.quorum.majority()) {
								throw this.quorum.unreachable(tally, "renew " + holds + " held locks");
							}
							if (!isDecided(tally, holds)) {
								throw this.quorum.undecided(tally, "renew " + holds + " held locks");
							}
							return renewedOnMajority(tally, holds);
						}));
		}
		return combined;
	}

	/**
	 * Return whether the renewal of every hold of a batch is decided: renewed by a
	 * majority of the nodes, or refused by so many that no majority can renew it. A hold
	 * that neither is may still be held on a majority, some of whose nodes did not
	 * answer: its renewal failed, and is tried again, as on one Redis.
	 */
	private boolean isDecided(Tally<List<Long>> tally, int holds) {
		for (int i = 0; i < holds; i++) {
			int hold = i;
			int renewed = tally.count((replies) -> replies.get(hold) == 1L);
			if (renewed < this.quorum.majority() && !this.quorum.isLost(tally.answered() - renewed)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Return, per hold of a batch, 1 when a majority of the nodes renewed it, otherwise
	 * 0.
	 */
	private List<Long> renewedOnMajority(Tally<List<Long>> tally, int holds) {
		List<Long> renewed = new ArrayList<>(holds);
		for (int i = 0; i < holds; i++) {
			int hold = i;
			renewed.add((tally.count((replies) -> replies.get(hold) == 1L) >= this.quorum.majority()) ? 1L : 0L);
		}
		return renewed;
	}

	/**
	 * Tell how long a lock stays taken on a majority of the nodes: the longest time that
	 * a majority of the answers reach, or -1 when so many nodes do not have it that no
	 * majority can; failed when the nodes that did not answer decide.
	 */
	@Override
	CompletableFuture<Long> lockState(LockId id) {
		return this.quorum.gather(eachReply((node) -> node.lockState(id)), (tally) -> false).thenApply((tally) -> {
			String what = "read the lease of lock '" + id.name + "'";
			if (tally.answered() < this.quorum.majority()) {
				throw this.quorum.unreachable(tally, what);
			}
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
	 * Force-release a lock on every node.
	 * @return the greatest last fencing token the nodes knew, or -1 when nothing held the
	 * lock on any node
	 */
	@Override
	CompletableFuture<Long> forceRelease(LockId id) {
		return this.quorum.gather(eachReply((node) -> node.forceRelease(id)), (tally) -> false).thenApply((tally) -> {
			if (tally.answered() < this.quorum.majority()) {
				throw this.quorum.unreachable(tally, "force-release lock '" + id.name + "'");
			}
			return tally.answers().stream().mapToLong(Long::longValue).max().orElse(-1);
		});
	}

	/**
	 * Send a {@code PING} to every node; answered once a majority answered.
	 */
	@Override
	CompletableFuture<String> ping() {
		return this.quorum
			.gather(eachReply(RedisLockCommands::ping),
					(tally) -> tally.answered() >= this.quorum.majority() || this.quorum.isLost(tally.failed()))
			.thenApply((tally) -> {
				if (tally.answered() < this.quorum.majority()) {
					throw this.quorum.unreachable(tally, "answer PING");
				}
				return "PONG";
			});
	}

	@Override
	List<CompletableFuture<String>> pingNodes() {
		return eachReply(RedisLockCommands::ping);
	}

	@Override
	int batchOf(String key) {
		return 0;
	}

	/**
	 * Open a subscriber to grant messages on every node, each on a connection of its own,
	 * opened from a thread of the quorum's own, and opened again when that failed.
	 */
	@Override
	LockConnection.ReleaseSubscriber subscriber(Consumer<String> onMessage) {
		return new QuorumSubscriber(this.nodes, onMessage, this.quorum);
	}

	@Override
	public void close() {
		this.nodes.forEach(QuorumNode::close);
		this.connector.shutdownNow();
	}

	/**
	 * Decide an attempt from the nodes' grants: held when a majority granted it and then
	 * raised their fencing keys to the greatest token they issued, both within the lease;
	 * otherwise what the refusal makes of the replies, where a node that granted but
	 * found the hold gone when raising its fencing key counts as a refusal.
	 * @param attempt the attempt
	 * @param grants each node's grant
	 * @param refusal what becomes of an attempt that does not count, given the replies
	 * @return the grant: the fencing token when held, otherwise 0 or minus the
	 * milliseconds before a retry is worth it
	 */
	private CompletableFuture<Grant> hold(Attempt attempt, List<CompletableFuture<Grant>> grants,
			Function<Tally<Long>, Grant> refusal) {
		List<CompletableFuture<Long>> replies = grants.stream().map((grant) -> grant.thenApply(Grant::reply)).toList();
		return this.quorum.gather(replies, this::decidesAttempt, attempt.sentNanos()).thenCompose((tally) -> {
			if (tally.count((reply) -> reply > 0) >= this.quorum.majority()
					&& this.quorum.isValid(attempt.sentNanos(), attempt.leaseMillis())) {
				long fencingToken = tally.answers().stream().mapToLong(Long::longValue).max().orElseThrow();
				if (tally.count((reply) -> reply == fencingToken) >= this.quorum.majority()) {
					// A majority issued it: their fencing keys hold it already
					return CompletableFuture.completedFuture(new Grant(fencingToken, 0));
				}
				return raiseFences(attempt, fencingToken, replies, refusal);
			}
			return CompletableFuture.completedFuture(refusal.apply(tally));
		});
	}

	/**
	 * Raise the fencing keys of the nodes that grant a hold below its fencing token to
	 * it, within what is left of the time the attempt's nodes are waited for: the hold
	 * counts once a majority's fencing keys hold at least the token (those that issued it
	 * hold it already) within the lease. A node whose grant had not come when a majority
	 * granted is raised once it grants. Otherwise the refusal decides from the replies,
	 * as from those to the attempt: a node that did not answer the raise counts as one
	 * that did not answer, one that found the hold gone as one that refused it.
	 * @param replies each node's reply to the attempt
	 * @param refusal what becomes of an attempt that does not count, given the replies
	 */
	private CompletableFuture<Grant> raiseFences(Attempt attempt, long fencingToken,
			List<CompletableFuture<Long>> replies, Function<Tally<Long>, Grant> refusal) {
		List<CompletableFuture<Long>> raised = new ArrayList<>(replies.size());
		for (int i = 0; i < replies.size(); i++) {
			QuorumNode node = this.nodes.get(i);
			raised.add(replies.get(i)
				.thenCompose((reply) -> (reply <= 0 || reply >= fencingToken) ? CompletableFuture.completedFuture(reply)
						: node
							.send((commands) -> commands.raiseFence(attempt.id(), attempt.token(), fencingToken,
									attempt.sent()))
							.thenCompose(Function.identity())
							.thenApply((held) -> held ? reply : 0L)));
		}
		return this.quorum.gather(raised, this::decidesAttempt, attempt.sentNanos()).thenApply((tally) -> {
			if (tally.count((reply) -> reply > 0) >= this.quorum.majority()
					&& this.quorum.isValid(attempt.sentNanos(), attempt.leaseMillis())) {
				return new Grant(fencingToken, 0);
			}
			return refusal.apply(tally);
		});
	}

	/**
	 * Return whether the replies to an attempt decide it: a majority granted it, or so
	 * many nodes refused it or did not answer that no majority can.
	 */
	private boolean decidesAttempt(Tally<Long> tally) {
		return tally.count((reply) -> reply > 0) >= this.quorum.majority()
				|| this.quorum.isLost(tally.count((reply) -> reply <= 0) + tally.failed());
	}

	/**
	 * Give back an attempt that no majority granted on every node, and tell the caller
	 * when to retry: after a random delay when some nodes granted it, otherwise when the
	 * lock's key runs out on the first node that refused it.
	 * @param what the attempt, for the message of its failure
	 */
	private Grant refused(LockId id, String token, Tally<Long> tally, String what) {
		releaseUnlessRefused(id, token, tally);
		if (this.quorum.isLost(tally.failed())) {
			throw this.quorum.unreachable(tally, what);
		}
		long shortestTtl = tally.answers()
			.stream()
			.filter((reply) -> reply < 0)
			.mapToLong((reply) -> -reply)
			.min()
			.orElse(0);
		boolean split = tally.count((reply) -> reply > 0) > 0;
		return new Grant((split || shortestTtl == 0) ? Quorum.retryReply() : -shortestTtl, 0);
	}

	/**
	 * Give back a hand-over that no majority granted, as a refused attempt, unless the
	 * nodes that did not answer decide whether the current holder still held the lock:
	 * then fail, as a hand-over that Redis did not answer does, rather than report the
	 * hold lost.
	 */
	private Grant refusedHandOver(LockId id, String nextToken, Tally<Long> tally) {
		String what = "hand lock '" + id.name + "' over";
		if (tally.count((reply) -> reply > 0) < this.quorum.majority()
				&& !this.quorum.isLost(tally.count((reply) -> reply <= 0)) && !this.quorum.isLost(tally.failed())) {
			releaseUnlessRefused(id, nextToken, tally);
			throw this.quorum.undecided(tally, what);
		}
		return refused(id, nextToken, tally, what);
	}

	/**
	 * Tell the observer each node's reply to an attempt to take a lock once it came, or
	 * failed, as after the driver's command timeout.
	 * @param grants each node's grant
	 * @return the same grants
	 */
	private List<CompletableFuture<Grant>> observed(List<CompletableFuture<Grant>> grants) {
		if (this.observer == LockObserver.NONE) {
			return grants;
		}
		for (int i = 0; i < grants.size(); i++) {
			int node = i;
			grants.get(i)
				.whenComplete((@Nullable Grant grant, @Nullable Throwable failure) -> this.observer.nodeReplied(node,
						nodeReply(grant, failure)));
		}
		return grants;
	}

	/**
	 * Return what a node did with an attempt to take a lock, from its grant or failure.
	 */
	private static LockObserver.NodeReply nodeReply(@Nullable Grant grant, @Nullable Throwable failure) {
		if (failure != null || grant == null) {
			return LockObserver.NodeReply.FAILED;
		}
		return (grant.reply() > 0) ? LockObserver.NodeReply.GRANTED : LockObserver.NodeReply.REFUSED;
	}

	/**
	 * Free what an attempt that does not count took: release its token on every node but
	 * those that refused it (and keep it in their queues), also where it is not known
	 * whether the attempt got through.
	 */
	private void releaseUnlessRefused(LockId id, String token, Tally<Long> grants) {
		List<Integer> refused = grants.nodesWhere((reply) -> reply <= 0);
		for (int i = 0; i < this.nodes.size(); i++) {
			if (!refused.contains(i)) {
				this.nodes.get(i).send((node) -> node.release(id, token, 0, 0, false));
			}
		}
	}

	/**
	 * Send a command to every node.
	 * @return what the command returned on each node, in order
	 */
	private <T> List<CompletableFuture<T>> each(Function<QuorumNodeCommands, T> command) {
		return this.nodes.stream().map((node) -> node.send(command)).toList();
	}

	/**
	 * Send a command whose reply comes later to every node.
	 * @return the reply of each node, in order
	 */
	private <T> List<CompletableFuture<T>> eachReply(Function<QuorumNodeCommands, CompletableFuture<T>> command) {
		return each(command).stream().map((sent) -> sent.thenCompose(Function.identity())).toList();
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
	private record Attempt(LockId id, String token, LeaseTerms sent, long leaseMillis, long sentNanos) {

	}

	/**
	 * Return a connection that refuses every command.
	 */
	private static LockConnection refusing() {
		return (LockConnection) Proxy.newProxyInstance(LockConnection.class.getClassLoader(),
				new Class<?>[] { LockConnection.class }, (proxy, method, args) -> {
					throw new UnsupportedOperationException(
							"'" + method.getName() + "' has no quorum rule on Redlock's nodes");
				});
	}

}
