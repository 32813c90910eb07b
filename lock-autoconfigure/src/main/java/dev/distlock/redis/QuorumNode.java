package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.connection.ReplicatedReply;
import dev.distlock.redis.renewal.LeaseTerms;
import org.jspecify.annotations.Nullable;

/**
 * One node of a Redlock quorum: the single-node commands of {@link RedisLockCommands} on
 * the node's own connection, and the scripts that only a quorum's node runs, which check
 * the node's uptime, issue a fencing token of at least the one the client proposes, and
 * raise a fencing key to the token a majority agreed on.
 *
 * <p>
 * The quorum sends its commands through {@link #send}, on the caller's thread once the
 * connection is open. Opening a connection blocks for as long as the node takes to refuse
 * or answer (a paused or unreachable node up to the connect timeout), and the caller must
 * hear the other nodes meanwhile: the command connection is opened from a thread of the
 * quorum's own, one attempt at a time, and the commands sent meanwhile wait for it in the
 * order they were sent (they fail with it when it fails); a subscriber's connection,
 * opened later, is opened from such a thread too.
 */
final class QuorumNode extends RedisLockCommands {

	private final LockConnection connection;

	private final Executor connector;

	private volatile boolean connected;

	/** The last attempt to open the command connection; {@code null} before the first. */
	private @Nullable CompletableFuture<?> opening;

	/** The last command that waits, or waited, for the opening. */
	private CompletableFuture<?> queued = CompletableFuture.completedFuture(null);

	QuorumNode(LockConnection connection, RedisLockSettings settings, Executor connector) {
		super(connection, settings, Duration.ZERO);
		this.connection = connection;
		this.connector = connector;
	}

	/**
	 * Send a command once the command connection is open.
	 * @param command sends the command on this node and returns its reply
	 * @return the reply; failed if the command threw
	 */
	<T> CompletableFuture<T> send(Function<QuorumNode, CompletableFuture<T>> command) {
		if (!this.connected) {
			CompletableFuture<T> queuedCommand = queueUntilOpen(command);
			if (queuedCommand != null) {
				return queuedCommand;
			}
		}
		try {
			return command.apply(this);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Open a connection to the node from a thread of the quorum's own.
	 * @param opening opens the connection and returns it
	 * @return the connection; failed if opening it threw
	 */
	<T> CompletableFuture<T> open(Supplier<T> opening) {
		return CompletableFuture.supplyAsync(opening, this.connector);
	}

	/**
	 * Queue a command behind the opening of the command connection, opening it again when
	 * the last attempt failed, unless it is open and no command waits for it.
	 * @return the queued command's reply, or {@code null} when it is to be sent now
	 */
	private synchronized <T> @Nullable CompletableFuture<T> queueUntilOpen(
			Function<QuorumNode, CompletableFuture<T>> command) {
		CompletableFuture<?> opened = this.opening;
		if (opened != null && opened.isDone() && !opened.isCompletedExceptionally() && this.queued.isDone()) {
			this.connected = true;
			return null;
		}
		if (opened == null || opened.isCompletedExceptionally()) {
			// Sending a PING opens the connection
			opened = open(this::ping);
			this.opening = opened;
		}
		CompletableFuture<?> open = opened;
		CompletableFuture<CompletableFuture<T>> sent = this.queued.handle((reply, failure) -> open)
			.thenCompose(Function.identity())
			.thenApply((connection) -> command.apply(this));
		this.queued = sent;
		return sent.thenCompose(Function.identity());
	}

	/**
	 * Send the acquire script for one lock like
	 * {@link #acquire(LockId, String, LeaseTerms, Queueing)}, but take nothing and reply
	 * 0 when the node has been up for less than the given time (it may have lost, in a
	 * restart, the holds it granted before), and issue a fencing token of at least the
	 * given floor.
	 * @param minUptimeMillis how long the node must have been up to grant the lock
	 * @param tokenFloor the least fencing token to issue
	 * @return the grant, as {@code acquire} returns it
	 */
	CompletableFuture<ReplicatedReply> acquireOnQuorum(LockId id, String token, LeaseTerms terms, Queueing queueing,
			long minUptimeMillis, long tokenFloor) {
		return grant(LuaScript.ACQUIRE_ON_QUORUM, id.grantKeys, ScriptArgs.concat(
				this.args.acquire(token, terms, queueing), Long.toString(minUptimeMillis), Long.toString(tokenFloor)));
	}

	/**
	 * Send the transfer script like
	 * {@link #transfer(LockId, String, LeaseTerms, String, LeaseTerms, String)}, but
	 * issue a fencing token of at least the given floor.
	 * @param tokenFloor the least fencing token to issue
	 * @return the grant, as {@code transfer} returns it
	 */
	CompletableFuture<ReplicatedReply> transferOnQuorum(LockId id, String token, LeaseTerms terms, String nextToken,
			LeaseTerms nextTerms, String waiterToken, long tokenFloor) {
		return grant(LuaScript.TRANSFER_ON_QUORUM, id.grantKeys, ScriptArgs
			.concat(this.args.transfer(terms, token, nextToken, nextTerms, waiterToken), Long.toString(tokenFloor)));
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
			.eval(LuaScript.RAISE_FENCE, new String[] { id.key, id.fenceKey },
					this.args.raiseFence(token, fencingToken, terms))
			.thenApply((Long result) -> result == 1L);
	}

}
