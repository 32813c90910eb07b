package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The commands the lock engine sends to Redis, on one driver:
 * {@link LettuceLockConnection} on Lettuce's own client, {@link SpringDataLockConnection}
 * on any Spring Data Redis {@code RedisConnectionFactory}. Scripts are named by their
 * SHA-1 digest ({@code EVALSHA}) and sent whole ({@code EVAL}) once when Redis does not
 * have them cached, as after a restart. A reply may come asynchronously or be complete
 * when the method returns; either way it fails with the driver's exception.
 */
interface LockConnection extends AutoCloseable {

	/**
	 * Run a script whose reply is an integer.
	 */
	CompletableFuture<Long> eval(LuaScript script, String[] keys, String... args);

	/**
	 * Run a script whose reply is an integer without the caller waiting for it: its reply
	 * changes nothing for the caller.
	 */
	CompletableFuture<Long> evalDetached(LuaScript script, String[] keys, String... args);

	/**
	 * Run a script whose reply is an integer, followed by {@code WAIT} on the same
	 * connection, so that the {@code WAIT} counts the replicas that have what the script
	 * wrote.
	 * @param replicas how many replicas must acknowledge
	 * @param timeout how long {@code WAIT} waits for them
	 */
	CompletableFuture<RedisLockCommands.Grant> evalAndWait(LuaScript script, int replicas, Duration timeout,
			String[] keys, String... args);

	/**
	 * Run a script whose reply is a list of integers once per call, pipelined where the
	 * driver and the deployment allow it.
	 * @param keys the keys of each call
	 * @param args the arguments of each call
	 * @return the reply of each call, in order
	 */
	List<CompletableFuture<List<Long>>> evalEach(LuaScript script, List<String[]> keys, List<String[]> args);

	/**
	 * Run a script whose reply is a list of integers with {@code EVAL}, so that it
	 * reaches Redis before any command sent after it even when Redis does not have it
	 * cached.
	 */
	CompletableFuture<List<Long>> evalInOrder(LuaScript script, String[] keys, String... args);

	/**
	 * Send a {@code PING}.
	 */
	CompletableFuture<String> ping();

	/**
	 * Return the group of keys that one script call may touch together: the Cluster slot
	 * on a cluster, the same group for every key otherwise.
	 */
	int batchOf(String key);

	/**
	 * Open a subscriber to grant messages on a connection of its own.
	 * @param onMessage told the text of every message: the key of a lock granted or
	 * released
	 */
	ReleaseSubscriber subscriber(Consumer<String> onMessage);

	@Override
	void close();

	/**
	 * Subscriptions to grant channels on one pub/sub connection, restored by the driver
	 * after a reconnect.
	 */
	interface ReleaseSubscriber extends AutoCloseable {

		/**
		 * Subscribe to a channel.
		 * @return completed when Redis confirmed the subscription; failed with the
		 * driver's exception when Redis refused it or could not be reached
		 */
		CompletableFuture<Void> subscribe(String channel);

		/**
		 * Unsubscribe from a channel without waiting.
		 */
		void unsubscribe(String channel);

		@Override
		void close();

	}

}
