package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.distlock.DistributedLockException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
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
import org.jspecify.annotations.Nullable;

/**
 * Runs the lock scripts on one shared Lettuce connection, opened on first use from the
 * client that Spring Boot configured (standalone, Sentinel or Cluster). Every call waits
 * at most the command timeout and turns Redis errors into
 * {@link DistributedLockException}. Scripts are called with {@code EVALSHA}, falling back
 * to {@code EVAL} once after a restart emptied Redis' script cache.
 */
final class RedisLockCommands implements AutoCloseable {

	private final AbstractRedisClient client;

	private final Duration timeout;

	private volatile @Nullable StatefulConnection<String, String> connection;

	RedisLockCommands(AbstractRedisClient client, Duration timeout) {
		this.client = client;
		this.timeout = timeout;
	}

	/**
	 * Send the acquire script for one lock, reserving the given number of fencing tokens.
	 * @return the last reserved fencing token when acquired, otherwise minus the holder's
	 * remaining TTL
	 */
	CompletableFuture<Long> acquire(String key, String fenceKey, String token, long leaseMillis, int tokens) {
		return evalsha(scripting(), LuaScript.ACQUIRE, ScriptOutputType.INTEGER, new String[] { key, fenceKey }, token,
				Long.toString(leaseMillis), Integer.toString(tokens));
	}

	/**
	 * Send the acquire script, then {@code WAIT} for replicas on the same connection.
	 * @return the acquire script's result and the number of replicas that acknowledged
	 */
	CompletableFuture<long[]> acquireAndWait(String key, String fenceKey, String token, long leaseMillis, int tokens,
			int replicas, Duration ackTimeout) {
		RedisScriptingAsyncCommands<String, String> node = nodeOf(key);
		CompletableFuture<Long> acquired = evalsha(node, LuaScript.ACQUIRE, ScriptOutputType.INTEGER,
				new String[] { key, fenceKey }, token, Long.toString(leaseMillis), Integer.toString(tokens));
		CompletableFuture<Long> acked = ((BaseRedisAsyncCommands<String, String>) node)
			.waitForReplication(replicas, ackTimeout.toMillis())
			.toCompletableFuture();
		return acquired.thenCombine(acked, (fence, count) -> new long[] { fence, count });
	}

	/**
	 * Send the transfer script, handing a held lock to the next holder.
	 * @return the next holder's fencing token, or 0 when the current token was not held
	 */
	CompletableFuture<Long> transfer(String key, String fenceKey, String token, String nextToken,
			long nextLeaseMillis) {
		return evalsha(scripting(), LuaScript.TRANSFER, ScriptOutputType.INTEGER, new String[] { key, fenceKey }, token,
				nextToken, Long.toString(nextLeaseMillis));
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
	 * @param what the operation, for the error message
	 */
	<T> T await(CompletableFuture<T> reply, String what) {
		try {
			return reply.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			reply.cancel(true);
			throw new DistributedLockException(
					"Redis did not answer within " + this.timeout + " to " + what + " (spring.data.redis.timeout)", ex);
		}
		catch (InterruptedException ex) {
			reply.cancel(true);
			Thread.currentThread().interrupt();
			throw new DistributedLockException("Interrupted while waiting for Redis to " + what, ex);
		}
		catch (ExecutionException | CancellationException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new DistributedLockException("Redis failed to " + what + ": " + cause.getMessage(), cause);
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
			.exceptionallyCompose((Throwable ex) -> (unwrap(ex) instanceof RedisNoScriptException)
					? commands.<T>eval(script.source(), type, keys, args).toCompletableFuture()
					: CompletableFuture.failedFuture(ex));
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

	private StatefulConnection<String, String> connection() {
		StatefulConnection<String, String> current = this.connection;
		if (current == null) {
			synchronized (this) {
				current = this.connection;
				if (current == null) {
					current = connect();
					this.connection = current;
				}
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

}
