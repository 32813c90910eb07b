package dev.distlock.redis;

import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import dev.distlock.DistributedLockException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * The shared Lettuce connection that lock commands use, opened on first use from the
 * client that Spring Boot configured (standalone, Sentinel or Cluster), and the pub/sub
 * connections opened from the same client.
 */
final class LockConnection implements AutoCloseable {

	private final AbstractRedisClient client;

	private final Lock connecting = new ReentrantLock();

	private volatile @Nullable StatefulConnection<String, String> connection;

	LockConnection(AbstractRedisClient client) {
		this.client = client;
	}

	/**
	 * Return the commands of the shared connection; on a cluster they route each key to
	 * its node.
	 */
	@SuppressWarnings("unchecked")
	RedisClusterAsyncCommands<String, String> commands() {
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
	RedisClusterAsyncCommands<String, String> nodeOf(String key) {
		StatefulConnection<String, String> current = connection();
		if (current instanceof StatefulRedisClusterConnection<?, ?> cluster) {
			RedisClusterNode node = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
			return ((StatefulRedisClusterConnection<String, String>) cluster).getConnection(node.getNodeId()).async();
		}
		return ((StatefulRedisConnection<String, String>) current).async();
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

	@Override
	public void close() {
		StatefulConnection<String, String> current = this.connection;
		if (current != null) {
			current.close();
		}
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
		try {
			return (this.client instanceof RedisClusterClient cluster) ? cluster.connect(StringCodec.UTF8)
					: ((RedisClient) this.client).connect(StringCodec.UTF8);
		}
		catch (RuntimeException ex) {
			throw new DistributedLockException("Could not connect to Redis for locking: " + ex.getMessage(), ex);
		}
	}

}
