package dev.distlock.redis;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.IntStream;

import dev.distlock.HoldKind;
import dev.distlock.LockObserver;
import dev.distlock.redis.HoldRenewals.Renewal;
import dev.distlock.redis.QuorumAttempts.Attempt;
import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.connection.ReplicatedReply;
import dev.distlock.redis.renewal.LeaseTerms;
import dev.distlock.thread.DaemonThreads;

/**
 * Runs the lock scripts on a quorum of independent Redis nodes (Redlock), each through
 * the single-node commands of its own {@link QuorumNode}, in parallel, and combines their
 * replies: those to an attempt to take a lock as {@link QuorumAttempts} decides them,
 * those to every other command as the {@link Quorum} does. Releases and give-backs go to
 * every node, also those that did not grant.
 *
 * <p>
 * A node's key lives the lease plus the drift allowance ({@link #onNodes}), while the
 * holder counts the lease from before it sent the attempt. A node that has been up for
 * less than the longer of that life and the settings' own takes nothing: it may have lost
 * the holds it granted before a restart. Waiters queue on every node and hear the grants
 * of every node; since the nodes' queues may grant the lock to different waiters, an
 * attempt that split the nodes is retried after a random delay, one refused by a majority
 * when the lock's key runs out on the first node that refused it, or at the latest at the
 * next grant or re-check.
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

	private final RedlockSettings redlock;

	private final Quorum quorum;

	private final QuorumAttempts attempts;

	private final LeaseTerms defaultTerms;

	/**
	 * Create the commands of a quorum.
	 * @param connections the nodes' connections, in order
	 * @param redlock how to allow for drift
	 * @param settings the registry's settings
	 * @param observer told each node's reply to every attempt to take a lock
	 */
	RedlockCommands(List<LockConnection> connections, RedlockSettings redlock, RedisLockSettings settings,
			LockObserver observer) {
		// A caller waits half the command timeout longer: the quorum settles every
		// command within nine tenths of it, failing with the nodes it lacked, and the
		// caller's own timeout, only a backup, must not overtake that when the timer that
		// ends the nodes' wait runs late on a busy machine
		super(refusing(), settings, settings.commandTimeout().dividedBy(2));
		this.nodes = connections.stream()
			.map((connection) -> new QuorumNode(connection, settings, this.connector))
			.toList();
		this.redlock = redlock;
		this.quorum = new Quorum(this.nodes.size(), settings.commandTimeout());
		this.attempts = new QuorumAttempts(this.nodes, this.quorum, observer);
		this.defaultTerms = new LeaseTerms(settings.leaseTime().toMillis(), settings.lockDelay().toMillis());
	}

	@Override
	CompletableFuture<ReplicatedReply> acquire(LockId id, String token, LeaseTerms terms, Queueing queueing) {
		long sentNanos = System.nanoTime();
		LeaseTerms sent = onNodes(terms);
		long minUptime = Math.max(sent.keyMillis(), onNodes(this.defaultTerms).keyMillis());
		long tokenFloor = QuorumAttempts.tokenFloor();
		return this.attempts.acquire(new Attempt(id, token, sent, terms.leaseMillis(), sentNanos),
				each((node) -> node.acquireOnQuorum(id, token, sent, queueing, minUptime, tokenFloor)));
	}

	@Override
	CompletableFuture<ReplicatedReply> transfer(LockId id, String token, LeaseTerms terms, String nextToken,
			LeaseTerms nextTerms, String waiterToken) {
		long sentNanos = System.nanoTime();
		LeaseTerms sent = onNodes(terms);
		LeaseTerms nextSent = onNodes(nextTerms);
		long tokenFloor = QuorumAttempts.tokenFloor();
		return this.attempts
			.handOver(new Attempt(id, nextToken, nextSent, nextTerms.leaseMillis(), sentNanos), each(
					(node) -> node.transferOnQuorum(id, token, sent, nextToken, nextSent, waiterToken, tokenFloor)))
			.thenApply((grant) -> {
				if (grant.reply() <= 0) {
					// Not handed over: free what the current holder still has
					giveBack(id, token, terms);
				}
				return grant;
			});
	}

	/**
	 * Return {@code false}: a node grants on its own, so a grant's message is no grant of
	 * the quorum; the waiter's next attempt takes the grant up on every node.
	 */
	@Override
	boolean startsOnGrant() {
		return false;
	}

	@Override
	CompletableFuture<ReplicatedReply> acquireShare(SharedAttempt attempt, String token, LeaseTerms terms,
			Queueing queueing) {
		throw RedisLockRegistry.notOnRedlock("shared holds");
	}

	@Override
	CompletableFuture<Boolean> releaseShare(LockId id, HoldKind kind, String token, long delayMillis,
			boolean leaseOver) {
		throw RedisLockRegistry.notOnRedlock("shared holds");
	}

	@Override
	void giveBack(LockId id, String token, LeaseTerms terms) {
		LeaseTerms sent = onNodes(terms);
		each((node) -> {
			node.giveBack(id, token, sent);
			return CompletableFuture.completedFuture(null);
		});
	}

	@Override
	void giveBack(LockId id, HoldKind kind, String token, LeaseTerms terms) {
		throw RedisLockRegistry.notOnRedlock("shared holds");
	}

	@Override
	CompletableFuture<Boolean> release(LockId id, String token, long keepMillis, long delayMillis, boolean leaseOver) {
		return this.quorum.released(each((node) -> node.release(id, token, keepMillis, delayMillis, leaseOver)),
				"release lock '" + id.name + "'");
	}

	@Override
	List<CompletableFuture<List<Long>>> renew(List<Renewal> batches) {
		List<Renewal> sent = batches.stream()
			.map((batch) -> new Renewal(batch.kind(), batch.ids(), batch.tokens(), onNodes(batch.terms())))
			.toList();
		List<CompletableFuture<List<CompletableFuture<List<Long>>>>> perNode = each(
				(node) -> CompletableFuture.completedFuture(node.renew(sent)));
		return IntStream.range(0, batches.size())
			.mapToObj((batch) -> this.quorum.renewed(perNode.stream()
				.map((replies) -> replies.thenCompose((sentBatches) -> sentBatches.get(batch)))
				.toList(), batches.get(batch).ids().size()))
			.toList();
	}

	@Override
	CompletableFuture<Long> lockState(LockId id) {
		return this.quorum.lockState(each((node) -> node.lockState(id)), "read the lease of lock '" + id.name + "'");
	}

	@Override
	CompletableFuture<Long> forceRelease(LockId id) {
		return this.quorum.greatest(each((node) -> node.forceRelease(id)), "force-release lock '" + id.name + "'");
	}

	@Override
	CompletableFuture<String> ping() {
		return this.quorum.answered(each(RedisLockCommands::ping), "answer PING").thenApply((tally) -> "PONG");
	}

	@Override
	List<CompletableFuture<String>> pingNodes() {
		return each(RedisLockCommands::ping);
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
	 * Return the terms a node is sent for a hold with the given terms: the lease plus its
	 * drift allowance, so that the key outlives the time the holder counts on it.
	 */
	private LeaseTerms onNodes(LeaseTerms terms) {
		return new LeaseTerms(terms.leaseMillis() + this.redlock.driftMillis(terms.leaseMillis()), terms.delayMillis());
	}

	/**
	 * Send a command to every node.
	 * @return the reply of each node, in order
	 */
	private <T> List<CompletableFuture<T>> each(Function<QuorumNode, CompletableFuture<T>> command) {
		return this.nodes.stream().map((node) -> node.send(command)).toList();
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
