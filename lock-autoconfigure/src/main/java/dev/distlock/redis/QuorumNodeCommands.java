package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.renewal.LeaseTerms;

/**
 * The single-node commands of one node of a Redlock quorum: those of
 * {@link RedisLockCommands}, and the scripts that only a quorum's node runs, which check
 * the node's uptime, issue a fencing token of at least the one the client proposes, and
 * raise a fencing key to the token a majority agreed on.
 */
final class QuorumNodeCommands extends RedisLockCommands {

	private final LockConnection connection;

	QuorumNodeCommands(LockConnection connection, RedisLockSettings settings) {
		super(connection, settings, Duration.ZERO);
		this.connection = connection;
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
	CompletableFuture<Grant> acquireOnQuorum(LockId id, String token, LeaseTerms terms, Queueing queueing,
			long minUptimeMillis, long tokenFloor) {
		return this.grants.grant(LuaScript.ACQUIRE_ON_QUORUM, id.grantKeys, ScriptArgs.concat(
				this.args.acquire(token, terms, queueing), Long.toString(minUptimeMillis), Long.toString(tokenFloor)));
	}

	/**
	 * Send the transfer script like
	 * {@link #transfer(LockId, String, LeaseTerms, String, LeaseTerms, String)}, but
	 * issue a fencing token of at least the given floor.
	 * @param tokenFloor the least fencing token to issue
	 * @return the grant, as {@code transfer} returns it
	 */
	CompletableFuture<Grant> transferOnQuorum(LockId id, String token, LeaseTerms terms, String nextToken,
			LeaseTerms nextTerms, String waiterToken, long tokenFloor) {
		return this.grants.grant(LuaScript.TRANSFER_ON_QUORUM, id.grantKeys, ScriptArgs
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
