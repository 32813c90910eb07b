package dev.distlock.redis.connection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.distlock.DistributedLockException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * The lock commands on Lettuce's own client, the one Spring Boot configured (standalone,
 * Sentinel or Cluster): one shared connection opened on first use, asynchronous replies,
 * and pub/sub connections opened from the same client.
 */
final class LettuceLockConnection implements LockConnection {

	private final AbstractRedisClient client;

	private final Lock connecting = new ReentrantLock();

	private volatile @Nullable StatefulConnection<String, String> connection;

	LettuceLockConnection(AbstractRedisClient client) {
		this.client = client;
	}

	@Override
	public CompletableFuture<Long> eval(Script script, String[] keys, String... args) {
		return evalsha(commands(), script, ScriptOutputType.INTEGER, keys, args,
				RedisFuture<Long>::toCompletableFuture);
	}

	@Override
	public CompletableFuture<ReplicatedReply> evalAndWait(Script script, int replicas, Duration timeout, String[] keys,
			String... args) {
		// WAIT follows the script on its node, also when the script has to be sent again
		// whole, so that it counts the replicas that have the grant.
		RedisClusterAsyncCommands<String, String> node = nodeOf(keys[0]);
		return evalsha(node, script, ScriptOutputType.INTEGER, keys, args,
				(RedisFuture<Long> reply) -> reply.toCompletableFuture()
					.thenCombine(node.waitForReplication(replicas, timeout.toMillis()), ReplicatedReply::new));
	}

	@Override
	public List<CompletableFuture<List<Long>>> evalEach(Script script, List<String[]> keys, List<String[]> args) {
		List<CompletableFuture<List<Long>>> replies = new ArrayList<>(keys.size());
		for (int i = 0; i < keys.size(); i++) {
			try {
				replies.add(evalsha(commands(), script, ScriptOutputType.MULTI, keys.get(i), args.get(i),
						RedisFuture<List<Long>>::toCompletableFuture));
			}
			catch (RuntimeException ex) {
				replies.add(CompletableFuture.failedFuture(ex));
			}
		}
		return replies;
	}

	@Override
	public CompletableFuture<String> ping() {
		return commands().ping().toCompletableFuture();
	}

	@Override
	public int batchOf(String key) {
		return (this.client instanceof RedisClusterClient) ? SlotHash.getSlot(key) : 0;
	}

	@Override
	public ReleaseSubscriber subscriber(Consumer<String> onMessage) {
		StatefulRedisPubSubConnection<String, String> pubSub = connectPubSub();
		pubSub.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(String channel, String message) {
				onMessage.accept(message);
			}

		});
		return new ReleaseSubscriber() {

			@Override
			public CompletableFuture<Void> subscribe(String channel) {
				return pubSub.async().subscribe(channel).toCompletableFuture();
			}

			@Override
			public void close() {
				pubSub.close();
			}

		};
	}

	@Override
	public void close() {
		StatefulConnection<String, String> current = this.connection;
		if (current != null) {
			current.close();
		}
	}

	/**
	 * Return the commands of the shared connection; on a cluster they route each key to
	 * its node.
	 */
	@SuppressWarnings("unchecked")
	private RedisClusterAsyncCommands<String, String> commands() {
		StatefulConnection<String, String> current = connection();
		return (current instanceof StatefulRedisClusterConnection<?, ?> cluster)
				? (RedisClusterAsyncCommands<String, String>) cluster.async()
				: ((StatefulRedisConnection<String, String>) current).async();
	}

	/**
	 * Return the commands of the node that serves the key, so that a {@code WAIT} follows
	 * the write on the same connection.
	 */
	@SuppressWarnings("unchecked")
	private RedisClusterAsyncCommands<String, String> nodeOf(String key) {
		if (connection() instanceof StatefulRedisClusterConnection<?, ?> cluster) {
			RedisClusterNode node = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
			return ((StatefulRedisClusterConnection<String, String>) cluster).getConnection(node.getNodeId()).async();
		}
		return commands();
	}

	/**
	 * Send a script by its digest, and whole when Redis answered that it does not have it
	 * cached.
	 * @param reply turns the script's reply into the call's, sending what follows it
	 */
	private static <T, R> CompletableFuture<R> evalsha(RedisScriptingAsyncCommands<String, String> commands,
			Script script, ScriptOutputType type, String[] keys, String[] args,
			Function<RedisFuture<T>, CompletableFuture<R>> reply) {
		return reply.apply(commands.evalsha(script.sha1(), type, keys, args))
			.exceptionallyCompose((Throwable ex) -> ErrorReplies.isNoScript(ex)
					? reply.apply(commands.eval(script.source(), type, keys, args))
					: CompletableFuture.failedFuture(ex));
	}

	/**
	 * Return the shared connection, opening it on first use. Opened under a
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
		return connect(RedisClient::connect, RedisClusterClient::connect, "locking");
	}

	private StatefulRedisPubSubConnection<String, String> connectPubSub() {
		return connect(RedisClient::connectPubSub, RedisClusterClient::connectPubSub, "lock release signals");
	}

	private <C> C connect(BiFunction<RedisClient, StringCodec, C> single,
			BiFunction<RedisClusterClient, StringCodec, C> cluster, String what) {
		try {
			return (this.client instanceof RedisClusterClient clusterClient)
					? cluster.apply(clusterClient, StringCodec.UTF8)
					: single.apply((RedisClient) this.client, StringCodec.UTF8);
		}
		catch (RuntimeException ex) {
			throw new DistributedLockException("Could not connect to Redis for " + what + ": " + ex.getMessage(), ex);
		}
	}

}
