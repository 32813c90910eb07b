package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import dev.distlock.DistributedLockException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs the lock scripts on one shared Lettuce connection, opened on first use from the
 * client that Spring Boot configured (standalone, Sentinel or Cluster). Every call waits
 * at most the command timeout and turns Redis errors into
 * {@link DistributedLockException}. Scripts are called with {@code EVALSHA}, falling back
 * to {@code EVAL} once after a restart emptied Redis' script cache. Every script that
 * grants a lock is followed by {@code WAIT} for replicas when the settings ask for it,
 * after the script that actually ran.
 */
final class RedisLockCommands implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockCommands.class);

	private final AbstractRedisClient client;

	private final Duration timeout;

	private final int replicasToAck;

	private final Duration replicaAckTimeout;

	private final Lock connecting = new ReentrantLock();

	private volatile @Nullable StatefulConnection<String, String> connection;

	RedisLockCommands(AbstractRedisClient client, RedisLockSettings settings) {
		this.client = client;
		this.timeout = settings.commandTimeout();
		this.replicasToAck = settings.replicasToAck();
		this.replicaAckTimeout = settings.replicaAckTimeout();
	}

	/**
	 * Send the acquire script for one lock, reserving the given number of fencing tokens,
	 * and wait for replicas when the settings ask for it.
	 * @return the grant: the last reserved fencing token when acquired, otherwise minus
	 * the holder's remaining TTL
	 */
	CompletableFuture<Grant> acquire(String key, String fenceKey, String token, long leaseMillis, int tokens) {
		return grant(LuaScript.ACQUIRE, key, fenceKey, token, Long.toString(leaseMillis), Integer.toString(tokens));
	}

	/**
	 * Send the transfer script, handing a held lock to the next holder, and wait for
	 * replicas when the settings ask for it.
	 * @return the grant: the next holder's fencing token, or 0 when the current token was
	 * not held
	 */
	CompletableFuture<Grant> transfer(String key, String fenceKey, String token, String nextToken,
			long nextLeaseMillis) {
		return grant(LuaScript.TRANSFER, key, fenceKey, token, nextToken, Long.toString(nextLeaseMillis));
	}

	/**
	 * Throw when a grant was acknowledged by fewer replicas than
	 * {@code distlock.redis.replicas-to-ack} asks for.
	 * @param lockName the lock's name, for the message
	 * @throws DistributedLockException if the lock was granted to too few replicas
	 */
	void requireAcknowledged(String lockName, Grant grant) {
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
	 * Release a token that no caller holds any more, without waiting: the reply, or its
	 * failure, changes nothing for the caller, and the key expires with its lease if the
	 * release does not reach Redis.
	 * @param lockName the lock's name, for the log
	 */
	void giveBack(String lockName, String key, String token) {
		try {
			release(key, token, 0);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not give back lock '" + lockName + "' in Redis", ex);
		}
	}

	/**
	 * Send the release script.
	 * @return whether the lock still held the token
	 */
	CompletableFuture<Boolean> release(String key, String token, long keepMillis) {
		return evalsha(scripting(), LuaScript.RELEASE, ScriptOutputType.INTEGER, new String[] { key }, token,
				Long.toString(keepMillis))
			.thenApply((Object result) -> ((Long) result) == 1L);
	}

	/**
	 * Send the renew script for locks of one Cluster slot.
	 * @return one entry per key, 1 when renewed
	 */
	CompletableFuture<List<Long>> renew(List<String> keys, List<String> tokens, long leaseMillis) {
		String[] args = new String[tokens.size() + 1];
		args[0] = Long.toString(leaseMillis);
		for (int i = 0; i < tokens.size(); i++) {
			args[i + 1] = tokens.get(i);
		}
		return evalsha(scripting(), LuaScript.RENEW, ScriptOutputType.MULTI, keys.toArray(String[]::new), args);
	}

	/**
	 * Send the renew script for one lock with {@code EVAL} rather than {@code EVALSHA},
	 * so that it reaches Redis before any command sent after it even when Redis does not
	 * have the script cached: the fallback of {@code EVALSHA} would send it again only
	 * after the {@code NOSCRIPT} reply, behind commands sent meanwhile.
	 * @return one entry, 1 when renewed
	 */
	CompletableFuture<List<Long>> renewInOrder(String key, String token, long leaseMillis) {
		RedisScriptingAsyncCommands<String, String> commands = scripting();
		return commands
			.<List<Long>>eval(LuaScript.RENEW.source(), ScriptOutputType.MULTI, new String[] { key },
					Long.toString(leaseMillis), token)
			.toCompletableFuture();
	}

	/**
	 * Send a {@code PING} on the command connection.
	 */
	CompletableFuture<String> ping() {
		return ((BaseRedisAsyncCommands<String, String>) scripting()).ping().toCompletableFuture();
	}

	/**
	 * Return the group of keys that one script call may touch together: the Cluster slot
	 * on a cluster, the same group for every key otherwise.
	 */
	int batchOf(String key) {
		return (this.client instanceof RedisClusterClient) ? SlotHash.getSlot(key) : 0;
	}

	/**
	 * Open a new pub/sub connection from the same client.
	 */
	StatefulRedisPubSubConnection<String, String> connectPubSub() {
		try {
			return (this.client instanceof RedisClusterClient cluster) ? cluster.connectPubSub(StringCodec.UTF8)
					: ((RedisClient) this.client).connectPubSub(StringCodec.UTF8);
		}
		catch (RuntimeException ex) {
			throw new DistributedLockException(
					"Could not connect to Redis for lock release signals: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Wait for a reply within the command timeout, cancelling the command when none came.
	 * An interrupt ends the wait with a failure and keeps the thread's interrupt flag.
	 * @param what the operation, for the error message
	 */
	<T> T await(CompletableFuture<T> reply, String what) {
		return await(reply, what, true);
	}

	/**
	 * Wait for a reply within the command timeout like {@link #await}, but go on waiting
	 * when interrupted, setting the interrupt flag again afterwards: for commands whose
	 * effect must be known, such as a release.
	 * @param what the operation, for the error message
	 */
	<T> T awaitUninterruptibly(CompletableFuture<T> reply, String what) {
		return await(reply, what, false);
	}

	private <T> T await(CompletableFuture<T> reply, String what, boolean interruptible) {
		long deadline = System.nanoTime() + this.timeout.toNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return reply.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					interrupted = true;
					if (interruptible) {
						reply.cancel(true);
						throw new DistributedLockException("Interrupted while waiting for Redis to " + what, ex);
					}
				}
			}
		}
		catch (TimeoutException ex) {
			reply.cancel(true);
			throw new DistributedLockException(
					"Redis did not answer within " + this.timeout + " to " + what + " (spring.data.redis.timeout)", ex);
		}
		catch (ExecutionException | CancellationException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new DistributedLockException("Redis failed to " + what + ": " + cause.getMessage(), cause);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void close() {
		StatefulConnection<String, String> current = this.connection;
		if (current != null) {
			current.close();
		}
	}

	@SuppressWarnings("unchecked")
	private <T> CompletableFuture<T> evalsha(RedisScriptingAsyncCommands<String, String> commands, LuaScript script,
			ScriptOutputType type, String[] keys, String... args) {
		return commands.<T>evalsha(script.sha1(), type, keys, args)
			.toCompletableFuture()
			.exceptionallyCompose((Throwable ex) -> isNoScript(ex)
					? commands.<T>eval(script.source(), type, keys, args).toCompletableFuture()
					: CompletableFuture.failedFuture(ex));
	}

	/**
	 * Run a script that grants the lock under {@code key} (whose fencing counter is
	 * {@code fenceKey}), followed by {@code WAIT} on the same connection when replicas
	 * must acknowledge. The {@code WAIT} is pipelined behind the script; when the script
	 * had to be sent again with {@code EVAL}, so is the {@code WAIT}, so that it always
	 * counts the replicas that have the grant.
	 */
	private CompletableFuture<Grant> grant(LuaScript script, String key, String fenceKey, String... args) {
		String[] keys = { key, fenceKey };
		if (this.replicasToAck == 0) {
			return this.<Long>evalsha(scripting(), script, ScriptOutputType.INTEGER, keys, args)
				.thenApply((reply) -> new Grant(reply, 0));
		}
		RedisScriptingAsyncCommands<String, String> node = nodeOf(key);
		return grantAndWait(node, node.evalsha(script.sha1(), ScriptOutputType.INTEGER, keys, args))
			.exceptionallyCompose((Throwable ex) -> isNoScript(ex)
					? grantAndWait(node, node.eval(script.source(), ScriptOutputType.INTEGER, keys, args))
					: CompletableFuture.failedFuture(ex));
	}

	private CompletableFuture<Grant> grantAndWait(RedisScriptingAsyncCommands<String, String> node,
			RedisFuture<Long> reply) {
		CompletableFuture<Long> acked = ((BaseRedisAsyncCommands<String, String>) node)
			.waitForReplication(this.replicasToAck, this.replicaAckTimeout.toMillis())
			.toCompletableFuture();
		return reply.toCompletableFuture().thenCombine(acked, Grant::new);
	}

	private static boolean isNoScript(Throwable ex) {
		return unwrap(ex) instanceof RedisNoScriptException;
	}

	private static Throwable unwrap(Throwable ex) {
		return (ex instanceof java.util.concurrent.CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	@SuppressWarnings("unchecked")
	private RedisScriptingAsyncCommands<String, String> scripting() {
		StatefulConnection<String, String> current = connection();
		return (current instanceof StatefulRedisClusterConnection<?, ?> cluster)
				? (RedisScriptingAsyncCommands<String, String>) cluster.async()
				: ((StatefulRedisConnection<String, String>) current).async();
	}

	/**
	 * Return the commands of the node that serves the key, so that a {@code WAIT} follows
	 * the write on the same connection.
	 */
	@SuppressWarnings("unchecked")
	private RedisScriptingAsyncCommands<String, String> nodeOf(String key) {
		StatefulConnection<String, String> current = connection();
		if (current instanceof StatefulRedisClusterConnection<?, ?> cluster) {
			RedisClusterNode node = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
			return ((StatefulRedisClusterConnection<String, String>) cluster).getConnection(node.getNodeId()).async();
		}
		return ((StatefulRedisConnection<String, String>) current).async();
	}

	/**
	 * Return the command connection, opening it on first use. Opened under a
	 * {@code java.util.concurrent} lock rather than a monitor, so that a virtual thread
	 * waiting for the connect does not pin its carrier.
	 */
	private StatefulConnection<String, String> connection() {
		StatefulConnection<String, String> current = this.connection;
		if (current == null) {
			this.connecting.lock();
			try {
				current = this.connection;
				if (current == null) {
					current = connect();
					this.connection = current;
				}
			}
			finally {
				this.connecting.unlock();
			}
		}
		return current;
	}

	private StatefulConnection<String, String> connect() {
		try {
			return (this.client instanceof RedisClusterClient cluster) ? cluster.connect(StringCodec.UTF8)
					: ((RedisClient) this.client).connect(StringCodec.UTF8);
		}
		catch (RuntimeException ex) {
			throw new DistributedLockException("Could not connect to Redis for locking: " + ex.getMessage(), ex);
		}
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

}
