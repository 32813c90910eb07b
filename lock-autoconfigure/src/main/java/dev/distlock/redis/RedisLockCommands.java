package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.distlock.DistributedLockException;
import dev.distlock.HoldKind;
import dev.distlock.LockName;
import dev.distlock.redis.HoldRenewals.Renewal;
import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.connection.ReplicatedReply;
import dev.distlock.redis.renewal.LeaseTerms;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs the lock scripts on a {@link LockConnection}, with the keys and arguments that
 * {@link ScriptArgs} builds. Every call waits at most the command timeout and turns Redis
 * errors into {@link DistributedLockException}. Every script that grants a lock is
 * followed on its connection by {@code WAIT} for the replicas that
 * {@code distlock.redis.replicas-to-ack} asks for, after the script that actually ran;
 * renewals go in batches ({@link HoldRenewals}).
 */
class RedisLockCommands implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockCommands.class);

	private final LockConnection connection;

	private final Replies replies;

	/** The keys and arguments of the lock scripts. */
	final ScriptArgs args;

	private final int replicasToAck;

	private final Duration replicaAckTimeout;

	RedisLockCommands(LockConnection connection, RedisLockSettings settings, Duration replyGrace) {
		this.connection = connection;
		this.replies = new Replies(settings.commandTimeout(), replyGrace);
		this.args = new ScriptArgs(settings.fencingRetention().toMillis());
		this.replicasToAck = settings.replicasToAck();
		this.replicaAckTimeout = settings.replicaAckTimeout();
	}

	/**
	 * Send the acquire script for one lock, and wait for replicas when the settings ask
	 * for it. When the lock is taken, the caller waits in the lock's queue or leaves it,
	 * as {@code queueing} says; when a release granted it the lock, it takes the grant
	 * up.
	 * @return the grant: the hold's fencing token when acquired, otherwise minus the lock
	 * key's remaining TTL
	 */
	CompletableFuture<ReplicatedReply> acquire(LockId id, String token, LeaseTerms terms, Queueing queueing) {
		return grant(LuaScript.ACQUIRE, id.grantKeys, this.args.acquire(token, terms, queueing));
	}

	/**
	 * Send the attempt script of a shared hold, and wait for replicas when the settings
	 * ask for it. When refused, the caller waits in the queue or leaves it, as
	 * {@code queueing} says.
	 * @return the grant: the hold's fencing token when admitted, otherwise minus the
	 * milliseconds until the next re-check is worth it, or 0 when unknown
	 */
	CompletableFuture<ReplicatedReply> acquireShare(SharedAttempt attempt, String token, LeaseTerms terms,
			Queueing queueing) {
		return grant(attempt.script(), attempt.keys(),
				ScriptArgs.concat(this.args.acquire(token, terms, queueing), attempt.args()));
	}

	/**
	 * Send the transfer script, handing a held lock to the next holder and taking that
	 * one out of the lock's wait queue, and wait for replicas when the settings ask for
	 * it. A hold whose lease Redis finds over (only its lock delay keeps the key) is
	 * handed to nobody: its key stays for the rest of the delay, like a release's.
	 * @param terms the current holder's lease and lock delay
	 * @param waiterToken the token the next holder waited under
	 * @return the grant: the next holder's fencing token, or 0 when the current token was
	 * not held or its lease was over
	 */
	CompletableFuture<ReplicatedReply> transfer(LockId id, String token, LeaseTerms terms, String nextToken,
			LeaseTerms nextTerms, String waiterToken) {
		return grant(LuaScript.TRANSFER, id.grantKeys,
				this.args.transfer(terms, token, nextToken, nextTerms, waiterToken));
	}

	/**
	 * Throw when a grant was acknowledged by fewer replicas than
	 * {@code distlock.redis.replicas-to-ack} asks for.
	 * @param lockName the lock's name, for the message
	 * @throws DistributedLockException if the lock was granted to too few replicas
	 */
	void requireAcknowledged(LockName lockName, ReplicatedReply grant) {
		if (grant.reply() > 0 && !isAcknowledged(grant)) {
			throw new DistributedLockException("Lock '" + lockName + "' was refused: " + grant.replicasAcked() + " of "
					+ this.replicasToAck + " replicas acknowledged it within " + this.replicaAckTimeout
					+ " (distlock.redis.replicas-to-ack)");
		}
	}

	/**
	 * Return whether as many replicas acknowledged a grant as
	 * {@code distlock.redis.replicas-to-ack} asks for.
	 */
	boolean isAcknowledged(ReplicatedReply grant) {
		return grant.replicasAcked() >= this.replicasToAck;
	}

	/**
	 * Run a script that grants a lock, then {@code WAIT} when replicas must acknowledge.
	 */
	CompletableFuture<ReplicatedReply> grant(LuaScript script, String[] keys, String... args) {
		if (this.replicasToAck == 0) {
			return this.connection.eval(script, keys, args).thenApply((reply) -> new ReplicatedReply(reply, 0));
		}
		return this.connection.evalAndWait(script, this.replicasToAck, this.replicaAckTimeout, keys, args);
	}

	/**
	 * Release a token that no caller holds any more, and take it out of the lock's wait
	 * queue, without waiting: the reply, or its failure, changes nothing for the caller,
	 * and the key expires with its lease (the entry with its life) if the release does
	 * not reach Redis. The token stays marked given back for the key's life under the
	 * given terms: an attempt under it that reaches Redis later, sent before the
	 * give-back on another connection (a pool's), takes nothing.
	 * @param terms the terms the token was offered under
	 */
	void giveBack(LockId id, String token, LeaseTerms terms) {
		giveBack(id.name, LuaScript.RELEASE, id.grantKeys, ScriptArgs.release(token, 0, 0, false, terms.keyMillis()));
	}

	/**
	 * Release a shared hold's token that no caller holds any more, and take it out of the
	 * wait queue, without waiting, like {@link #giveBack(LockId, String, LeaseTerms)}.
	 * @param kind which set of holders the token may be in
	 * @param terms the terms the token was offered under
	 */
	void giveBack(LockId id, HoldKind kind, String token, LeaseTerms terms) {
		giveBack(id.name, LuaScript.release(kind), SharedAttempt.keysOf(id, kind),
				ScriptArgs.releaseShare(token, 0, false, terms.keyMillis()));
	}

	/**
	 * Send the release script of a shared hold's kind, which takes its entry out of the
	 * set of holders and wakes the first waiter of the queue (a read share: grants the
	 * lock to it when the last reader leaves). A hold whose lease is over (the caller
	 * knows it lost or ran out, or Redis finds only the lock delay left) keeps its place
	 * for the rest of its entry's life instead: the lock delay protects the work that may
	 * still run under it.
	 * @param delayMillis the hold's lock delay
	 * @param leaseOver whether the caller knows the lease is over
	 * @return whether the set of holders still had the entry with time left on its lease
	 */
	CompletableFuture<Boolean> releaseShare(LockId id, HoldKind kind, String token, long delayMillis,
			boolean leaseOver) {
		return this.connection
			.eval(LuaScript.release(kind), SharedAttempt.keysOf(id, kind),
					ScriptArgs.releaseShare(token, delayMillis, leaseOver, 0))
			.thenApply((Long result) -> result == 1L);
	}

	private void giveBack(LockName name, LuaScript script, String[] keys, String... args) {
		try {
			this.connection.evalDetached(script, keys, args).whenComplete((Long reply, @Nullable Throwable ex) -> {
				if (ex != null) {
					logGiveBackFailure(name, ex);
				}
			});
		}
		catch (RuntimeException ex) {
			logGiveBackFailure(name, ex);
		}
	}

	/**
	 * Send the release script, which grants the lock to the first waiter of its queue. A
	 * hold whose lease is over (the caller knows it lost or ran out, or Redis finds only
	 * the lock delay left) keeps its key for the rest of its life instead of freeing it:
	 * the lock delay protects the work that may still run under it.
	 * @param keepMillis how long the key must still be kept for a minimum hold time
	 * @param delayMillis the hold's lock delay
	 * @param leaseOver whether the caller knows the lease is over
	 * @return whether the lock still held the token with time left on its lease
	 */
	CompletableFuture<Boolean> release(LockId id, String token, long keepMillis, long delayMillis, boolean leaseOver) {
		return this.connection
			.eval(LuaScript.RELEASE, id.grantKeys, ScriptArgs.release(token, keepMillis, delayMillis, leaseOver, 0))
			.thenApply((Long result) -> result == 1L);
	}

	/**
	 * Send the renew script of their kind once per batch of holds of one Cluster slot
	 * with the same terms, pipelined where the connection allows, extending their keys
	 * (or their entries in a set of holders) and their fencing keys.
	 * @param batches the locks held, and the token held under each, per batch
	 * @return per batch, in the order given, one entry per lock, 1 when renewed
	 */
	List<CompletableFuture<List<Long>>> renew(List<Renewal> batches) {
		return HoldRenewals.send(this.connection, this.args, batches);
	}

	/**
	 * Send the renew script of a hold's kind for that hold alone, with new terms: an
	 * extension. Like a renewal, it refuses a hold whose lease Redis finds over (only the
	 * lock delay keeps it) and never shortens the key or entry.
	 * @return one entry, 1 when extended
	 */
	CompletableFuture<List<Long>> extend(HoldKind kind, LockId id, String token, LeaseTerms terms) {
		return renew(List.of(new Renewal(kind, List.of(id), List.of(token), terms))).get(0);
	}

	/**
	 * Send the lock-state script, which tells how long a lock stays taken by anyone
	 * unless renewed: its key's time to live, or that of the longest live read share of
	 * the read/write lock of its name.
	 * @return the milliseconds left, or -1 when nothing takes the lock
	 */
	CompletableFuture<Long> lockState(LockId id) {
		return this.connection.eval(LuaScript.LOCK_STATE,
				new String[] { id.key, LockKeys.heldKey(id, HoldKind.READ_SHARE) });
	}

	/**
	 * Send the force-release script, which deletes a lock's key whatever token it holds
	 * and grants the lock to the first waiter of its queue.
	 * @return the last fencing token issued for the lock (0 when no longer known), or -1
	 * when nothing held the lock
	 */
	CompletableFuture<Long> forceRelease(LockId id) {
		return this.connection.eval(LuaScript.FORCE_RELEASE, id.grantKeys);
	}

	/**
	 * Send a {@code PING} on the command connection.
	 */
	CompletableFuture<String> ping() {
		return this.connection.ping();
	}

	/**
	 * Send a {@code PING} to each node of a quorum of independent nodes.
	 * @return each node's reply, in order; empty on one Redis deployment
	 */
	List<CompletableFuture<String>> pingNodes() {
		return List.of();
	}

	/**
	 * Return the group of keys that one script call may touch together
	 * ({@link LockConnection#batchOf}).
	 */
	int batchOf(String key) {
		return this.connection.batchOf(key);
	}

	/**
	 * Return whether a waiter may start on the message of a grant, without a command of
	 * its own: not when grants wait for replicas, which the waiter's take-up does.
	 */
	boolean startsOnGrant() {
		return this.replicasToAck == 0;
	}

	/**
	 * Open a subscriber to grant messages ({@link LockConnection#subscriber}).
	 */
	LockConnection.ReleaseSubscriber subscriber(Consumer<String> onMessage) {
		return this.connection.subscriber(onMessage);
	}

	/**
	 * Wait for a reply within the command timeout, ended by an interrupt
	 * ({@link Replies#await}).
	 */
	<T> T await(CompletableFuture<T> reply, String what) {
		return this.replies.await(reply, what, true);
	}

	/**
	 * Wait for a reply within the command timeout whatever interrupts the caller, for
	 * commands whose effect must be known ({@link Replies#await}).
	 */
	<T> T awaitUninterruptibly(CompletableFuture<T> reply, String what) {
		return this.replies.await(reply, what, false);
	}

	@Override
	public void close() {
		this.connection.close();
	}

	private static void logGiveBackFailure(LockName lockName, Throwable ex) {
		logger.debug("Could not give back lock '" + lockName + "' in Redis", ex);
	}

}
