package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.distlock.DistributedLockException;
import dev.distlock.HoldKind;
import dev.distlock.LockName;
import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.connection.ReplicatedReply;
import dev.distlock.redis.renewal.LeaseTerms;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs the lock scripts on a {@link LockConnection}. Every call waits at most the command
 * timeout and turns Redis errors into {@link DistributedLockException}. Every script that
 * grants a lock is followed by {@code WAIT} for replicas when the settings ask for it,
 * after the script that actually ran.
 */
class RedisLockCommands implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockCommands.class);

	private final LockConnection connection;

	private final Replies replies;

	private final int replicasToAck;

	private final Duration replicaAckTimeout;

	private final long retentionMillis;

	RedisLockCommands(LockConnection connection, RedisLockSettings settings) {
		this.connection = connection;
		this.replies = new Replies(settings.commandTimeout());
		this.replicasToAck = settings.replicasToAck();
		this.replicaAckTimeout = settings.replicaAckTimeout();
		this.retentionMillis = settings.fencingRetention().toMillis();
	}

	/**
	 * Send the acquire script for one lock, and wait for replicas when the settings ask
	 * for it. When the lock is taken, the caller waits in the lock's queue or leaves it,
	 * as {@code queueing} says; when a release granted it the lock, it takes the grant
	 * up.
	 * @return the grant: the hold's fencing token when acquired, otherwise minus the lock
	 * key's remaining TTL
	 */
	CompletableFuture<Grant> acquire(LockId id, String token, LeaseTerms terms, Queueing queueing) {
		return grant(LuaScript.ACQUIRE, id.grantKeys, acquireArgs(token, terms, queueing));
	}

	/**
	 * Send the acquire script for one lock like
	 * {@link #acquire(LockId, String, LeaseTerms, Queueing)}, on one node of a quorum,
	 * which takes nothing and replies 0 when it has been up for less than the given time
	 * (it may have lost, in a restart, the holds it granted before), and issues a fencing
	 * token of at least the given floor.
	 * @param minUptimeMillis how long the node must have been up to grant the lock
	 * @param tokenFloor the least fencing token to issue
	 * @return the grant, as {@code acquire} returns it
	 */
	CompletableFuture<Grant> acquireOnQuorum(LockId id, String token, LeaseTerms terms, Queueing queueing,
			long minUptimeMillis, long tokenFloor) {
		return grant(LuaScript.ACQUIRE_ON_QUORUM, id.grantKeys,
				withArgs(acquireArgs(token, terms, queueing), minUptimeMillis, tokenFloor));
	}

	/**
	 * Send the raise-fence script, which raises a held lock's fencing key to a fencing
	 * token that a quorum of nodes issued, so that the next token this node issues for
	 * the lock is greater.
	 * @param token the holder's token
	 * @param fencingToken the fencing token of the hold
	 * @param terms the terms the hold was granted with
	 * @return whether the lock still held the holder's token
	 */
	CompletableFuture<Boolean> raiseFence(LockId id, String token, long fencingToken, LeaseTerms terms) {
		return this.connection
			.eval(LuaScript.RAISE_FENCE, new String[] { id.key, id.fenceKey }, token, Long.toString(fencingToken),
					fenceMillis(terms))
			.thenApply((Long result) -> result == 1L);
	}

	/**
	 * Send the attempt script of a shared hold, and wait for replicas when the settings
	 * ask for it. When refused, the caller waits in the queue or leaves it, as
	 * {@code queueing} says.
	 * <p>
	 * The script's arguments: the caller's token, how long its entry lives (the lease
	 * plus the lock delay), how long the fencing key lives, {@code 1} to wait in the
	 * queue or {@code 0} to leave it, how long a queue entry lives, the caller's claim
	 * time, the channel of its process, then the attempt's own arguments.
	 * @return the grant: the hold's fencing token when admitted, otherwise minus the
	 * milliseconds until the next re-check is worth it, or 0 when unknown
	 */
	CompletableFuture<Grant> acquireShare(SharedAttempt attempt, String token, LeaseTerms terms, Queueing queueing) {
		String[] args = new String[7 + attempt.args().length];
		args[0] = token;
		args[1] = Long.toString(terms.keyMillis());
		args[2] = fenceMillis(terms);
		args[3] = queueing.waits() ? "1" : "0";
		args[4] = Long.toString(queueing.entryMillis());
		args[5] = Long.toString(queueing.claimMillis());
		args[6] = queueing.channel();
		System.arraycopy(attempt.args(), 0, args, 7, attempt.args().length);
		return grant(attempt.script(), attempt.keys(), args);
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
	CompletableFuture<Grant> transfer(LockId id, String token, LeaseTerms terms, String nextToken, LeaseTerms nextTerms,
			String waiterToken) {
		return grant(LuaScript.TRANSFER, id.grantKeys, transferArgs(token, terms, nextToken, nextTerms, waiterToken));
	}

	/**
	 * Send the transfer script like
	 * {@link #transfer(LockId, String, LeaseTerms, String, LeaseTerms, String)}, on one
	 * node of a quorum, which issues a fencing token of at least the given floor.
	 * @param tokenFloor the least fencing token to issue
	 * @return the grant, as {@code transfer} returns it
	 */
	CompletableFuture<Grant> transferOnQuorum(LockId id, String token, LeaseTerms terms, String nextToken,
			LeaseTerms nextTerms, String waiterToken, long tokenFloor) {
		return grant(LuaScript.TRANSFER_ON_QUORUM, id.grantKeys,
				withArgs(transferArgs(token, terms, nextToken, nextTerms, waiterToken), tokenFloor));
	}

	/**
	 * Throw when a grant was acknowledged by fewer replicas than
	 * {@code distlock.redis.replicas-to-ack} asks for.
	 * @param lockName the lock's name, for the message
	 * @throws DistributedLockException if the lock was granted to too few replicas
	 */
	void requireAcknowledged(LockName lockName, Grant grant) {
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
	boolean isAcknowledged(Grant grant) {
		return grant.replicasAcked() >= this.replicasToAck;
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
		giveBack(id.name, LuaScript.RELEASE, id.grantKeys, releaseArgs(token, 0, 0, false, terms.keyMillis()));
	}

	/**
	 * Release a shared hold's token that no caller holds any more, and take it out of the
	 * wait queue, without waiting, like {@link #giveBack(LockId, String, LeaseTerms)}.
	 * @param kind which set of holders the token may be in
	 * @param terms the terms the token was offered under
	 */
	void giveBack(LockId id, HoldKind kind, String token, LeaseTerms terms) {
		giveBack(id.name, LuaScript.release(kind), SharedAttempt.keysOf(id, kind), token, "0", "0",
				Long.toString(terms.keyMillis()));
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
			.eval(LuaScript.release(kind), SharedAttempt.keysOf(id, kind), token, Long.toString(delayMillis),
					leaseOver ? "1" : "0", "0")
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
			.eval(LuaScript.RELEASE, id.grantKeys, releaseArgs(token, keepMillis, delayMillis, leaseOver, 0))
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
		Map<HoldKind, Iterator<CompletableFuture<List<Long>>>> sent = new EnumMap<>(HoldKind.class);
		for (HoldKind kind : HoldKind.values()) {
			List<String[]> keys = new ArrayList<>();
			List<String[]> args = new ArrayList<>();
			for (Renewal batch : batches) {
				if (batch.kind() == kind) {
					keys.add(renewKeys(kind, batch.ids()));
					args.add(renewArgs(batch.terms(), batch.tokens()));
				}
			}
			if (!keys.isEmpty()) {
				sent.put(kind, this.connection.evalEach(LuaScript.renew(kind), keys, args).iterator());
			}
		}
		List<CompletableFuture<List<Long>>> replies = new ArrayList<>(batches.size());
		for (Renewal batch : batches) {
			replies.add(sent.get(batch.kind()).next());
		}
		return replies;
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
	 * Return the group of keys that one script call may touch together: the Cluster slot
	 * on a cluster, the same group for every key otherwise.
	 */
	int batchOf(String key) {
		return this.connection.batchOf(key);
	}

	/**
	 * Open a subscriber to grant messages on a connection of its own.
	 * @param onMessage told the text of every message: the key of a lock granted or
	 * released
	 */
	LockConnection.ReleaseSubscriber subscriber(Consumer<String> onMessage) {
		return this.connection.subscriber(onMessage);
	}

	/**
	 * Wait for a reply within the command timeout, cancelling the command when none came.
	 * An interrupt ends the wait with a failure and keeps the thread's interrupt flag.
	 * @param what the operation, for the error message
	 */
	<T> T await(CompletableFuture<T> reply, String what) {
		return this.replies.await(reply, what);
	}

	/**
	 * Wait for a reply within the command timeout like {@link #await}, but go on waiting
	 * when interrupted, setting the interrupt flag again afterwards: for commands whose
	 * effect must be known, such as a release.
	 * @param what the operation, for the error message
	 */
	<T> T awaitUninterruptibly(CompletableFuture<T> reply, String what) {
		return this.replies.awaitUninterruptibly(reply, what);
	}

	@Override
	public void close() {
		this.connection.close();
	}

	/**
	 * Return how long a fencing key lives after a hold with the given terms was granted
	 * or renewed: its key's life, then the fencing retention.
	 */
	private String fenceMillis(LeaseTerms terms) {
		return Long.toString(terms.keyMillis() + this.retentionMillis);
	}

	/**
	 * Run a script that grants a lock (its key and its fencing key), followed by
	 * {@code WAIT} on the same connection when replicas must acknowledge.
	 */
	private CompletableFuture<Grant> grant(LuaScript script, String[] keys, String... args) {
		if (this.replicasToAck == 0) {
			return this.connection.eval(script, keys, args).thenApply((reply) -> new Grant(reply, 0));
		}
		return this.connection.evalAndWait(script, this.replicasToAck, this.replicaAckTimeout, keys, args)
			.thenApply((ReplicatedReply replied) -> new Grant(replied.reply(), replied.replicasAcked()));
	}

	/**
	 * Return the acquire script's arguments.
	 */
	private String[] acquireArgs(String token, LeaseTerms terms, Queueing queueing) {
		return new String[] { token, Long.toString(terms.keyMillis()), fenceMillis(terms), queueing.waits() ? "1" : "0",
				Long.toString(queueing.entryMillis()), Long.toString(queueing.claimMillis()), queueing.channel() };
	}

	/**
	 * Return the transfer script's arguments.
	 */
	private String[] transferArgs(String token, LeaseTerms terms, String nextToken, LeaseTerms nextTerms,
			String waiterToken) {
		return new String[] { token, nextToken, Long.toString(nextTerms.keyMillis()), fenceMillis(nextTerms),
				waiterToken, Long.toString(terms.delayMillis()) };
	}

	/**
	 * Return a script's arguments followed by more, as the texts that a script on a node
	 * of a quorum runs after read them.
	 */
	private static String[] withArgs(String[] args, long... more) {
		String[] all = Arrays.copyOf(args, args.length + more.length);
		for (int i = 0; i < more.length; i++) {
			all[args.length + i] = Long.toString(more[i]);
		}
		return all;
	}

	/**
	 * Return the release script's arguments.
	 * @param buryMillis how long a token given back stays marked so; 0 for a release
	 */
	private static String[] releaseArgs(String token, long keepMillis, long delayMillis, boolean leaseOver,
			long buryMillis) {
		return new String[] { token, Long.toString(keepMillis), Long.toString(delayMillis), leaseOver ? "1" : "0",
				Long.toString(buryMillis) };
	}

	private static String[] renewKeys(HoldKind kind, List<LockId> ids) {
		String[] keys = new String[2 * ids.size()];
		for (int i = 0; i < ids.size(); i++) {
			keys[2 * i] = LockKeys.heldKey(ids.get(i), kind);
			keys[2 * i + 1] = ids.get(i).fenceKey;
		}
		return keys;
	}

	private String[] renewArgs(LeaseTerms terms, List<String> tokens) {
		String[] args = new String[tokens.size() + 3];
		args[0] = Long.toString(terms.keyMillis());
		args[1] = fenceMillis(terms);
		args[2] = Long.toString(terms.delayMillis());
		for (int i = 0; i < tokens.size(); i++) {
			args[i + 3] = tokens.get(i);
		}
		return args;
	}

	private static void logGiveBackFailure(LockName lockName, Throwable ex) {
		logger.debug("Could not give back lock '" + lockName + "' in Redis", ex);
	}

	/**
	 * The reply of a script that grants a lock, with the replicas that acknowledged it.
	 *
	 * @param reply what the script returned
	 * @param replicasAcked how many replicas acknowledged the grant; 0 when none were
	 * asked to
	 */
	record Grant(long reply, long replicasAcked) {

	}

	/**
	 * Where an acquisition stands in the lock's wait queue while the lock is taken.
	 *
	 * @param waits whether the caller waits in the queue; otherwise it leaves it
	 * @param entryMillis how long the caller's entry lives unless a later acquisition
	 * renews it
	 * @param claimMillis how long a grant to the caller waits for it to be taken up
	 * @param channel the channel on which the caller's process hears its grants; empty
	 * when it polls
	 */
	record Queueing(boolean waits, long entryMillis, long claimMillis, String channel) {

		/** Not waiting: a caller that only tries, or gives up. */
		static final Queueing NONE = new Queueing(false, 0, 0, "");

	}

	/**
	 * Holds of one Cluster slot and one kind with the same terms, renewed by one script
	 * call.
	 *
	 * @param kind how the holds are kept in Redis
	 * @param ids the locks held
	 * @param tokens the token held under each
	 * @param terms the lease and lock delay of the holds
	 */
	record Renewal(HoldKind kind, List<LockId> ids, List<String> tokens, LeaseTerms terms) {

	}

}
