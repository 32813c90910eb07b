package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.distlock.DistributedLockException;
import dev.distlock.LockName;
import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.connection.ReplicatedReply;

/**
 * Has replicas acknowledge every grant as {@code distlock.redis.replicas-to-ack} asks:
 * runs each script that grants a lock (its key and its fencing key) followed by
 * {@code WAIT} on the same connection when replicas must acknowledge, and tells whether
 * enough did.
 */
final class ReplicaAcks {

	private final LockConnection connection;

	private final int replicasToAck;

	private final Duration timeout;

	ReplicaAcks(LockConnection connection, RedisLockSettings settings) {
		this.connection = connection;
		this.replicasToAck = settings.replicasToAck();
		this.timeout = settings.replicaAckTimeout();
	}

	/**
	 * Run a script that grants a lock, followed by {@code WAIT} when replicas must
	 * acknowledge.
	 */
	CompletableFuture<ReplicatedReply> grant(LuaScript script, String[] keys, String... args) {
		if (this.replicasToAck == 0) {
			return this.connection.eval(script, keys, args).thenApply((reply) -> new ReplicatedReply(reply, 0));
		}
		return this.connection.evalAndWait(script, this.replicasToAck, this.timeout, keys, args);
	}

	/**
	 * Return whether grants need no replica's acknowledgement, so that a waiter may start
	 * on a grant's message before a command of its own confirmed the grant.
	 */
	boolean needNoAcks() {
		return this.replicasToAck == 0;
	}

	/**
	 * Throw when a grant was acknowledged by too few replicas.
	 * @param lockName the lock's name, for the message
	 * @throws DistributedLockException if the lock was granted to too few replicas
	 */
	void require(LockName lockName, ReplicatedReply grant) {
		if (grant.reply() > 0 && !isAcknowledged(grant)) {
			throw new DistributedLockException(
					"Lock '" + lockName + "' was refused: " + grant.replicasAcked() + " of " + this.replicasToAck
							+ " replicas acknowledged it within " + this.timeout + " (distlock.redis.replicas-to-ack)");
		}
	}

	/**
	 * Return whether as many replicas acknowledged a grant as must.
	 */
	boolean isAcknowledged(ReplicatedReply grant) {
		return grant.replicasAcked() >= this.replicasToAck;
	}

}
