package dev.distlock.redis.connection;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The commands the lock engine sends to Redis, on one driver: Lettuce's own client or a
 * Spring Data Redis {@code RedisConnectionFactory}, as {@link LockConnections} makes
 * them. Scripts are named by their SHA-1 digest ({@code EVALSHA}) and sent whole
 * ({@code EVAL}) once when Redis does not have them cached, as after a restart. A reply
 * may come asynchronously or be complete when the method returns; either way it fails
 * with the driver's exception. A {@code RedisLockRegistry} closes its connection when it
 * is closed.
 *
 * @since 0.1.0
 */
public interface LockConnection extends AutoCloseable {

	/**
	 * Run a script whose reply is an integer.
	 * @param script the script
	 * @param keys the keys it touches
	 * @param args its arguments
	 * @return the reply
	 */
	CompletableFuture<Long> eval(Script script, String[] keys, String... args);

	/**
	 * Run a script whose reply is an integer without the caller waiting for it: its reply
	 * changes nothing for the caller. By default {@link #eval}, for a driver whose
	 * replies come asynchronously.
	 * @param script the script
	 * @param keys the keys it touches
	 * @param args its arguments
	 * @return the reply
	 */
	default CompletableFuture<Long> evalDetached(Script script, String[] keys, String... args) {
		return eval(script, keys, args);
	}

	/**
	 * Run a script whose reply is an integer, followed by {@code WAIT} on the same
	 * connection, so that the {@code WAIT} counts the replicas that have what the script
	 * wrote.
	 * @param script the script
	 * @param replicas how many replicas must acknowledge
	 * @param timeout how long {@code WAIT} waits for them
	 * @param keys the keys it touches
	 * @param args its arguments
	 * @return the script's reply and the replicas that acknowledged it
	 */
	CompletableFuture<ReplicatedReply> evalAndWait(Script script, int replicas, Duration timeout, String[] keys,
			String... args);

	/**
	 * Run a script whose reply is a list of integers once per call, pipelined where the
	 * driver and the deployment allow it.
	 * @param script the script
	 * @param keys the keys of each call
	 * @param args the arguments of each call
	 * @return the reply of each call, in order
	 */
	List<CompletableFuture<List<Long>>> evalEach(Script script, List<String[]> keys, List<String[]> args);

	/**
	 * Send a {@code PING}.
	 * @return the reply
	 */
	CompletableFuture<String> ping();

	/**
	 * Return the group of keys that one script call may touch together: the Cluster slot
	 * on a cluster, the same group for every key otherwise.
	 * @param key a key
	 * @return its group
	 */
	int batchOf(String key);

	/**
	 * Open a subscriber to grant messages on a connection of its own.
	 * @param onMessage told the text of every message: the key of a lock released, or
	 * granted with the grant's details after it
	 * @return the subscriber; close it after use
	 */
	ReleaseSubscriber subscriber(Consumer<String> onMessage);

	/**
	 * Close the connections this connection opened, leaving the client or the connection
	 * factory it was made on to its owner.
	 */
	@Override
	void close();

	/**
	 * Subscriptions to grant channels on one pub/sub connection, restored by the driver
	 * after a reconnect.
	 */
	interface ReleaseSubscriber extends AutoCloseable {

		/**
		 * Subscribe to a channel.
		 * @param channel the channel
		 * @return completed when Redis confirmed the subscription; failed with the
		 * driver's exception when Redis refused it or could not be reached
		 */
		CompletableFuture<Void> subscribe(String channel);

		/**
		 * Open again, without waiting, the connections of this subscriber whose opening
		 * failed, subscribed to the channels subscribed so far. Called before a waiter
		 * waits for a signal. By default nothing: the one pub/sub connection of a driver
		 * is opened at the first subscription and restored by the driver after a
		 * reconnect.
		 */
		default void reopen() {
		}

		/**
		 * Close the pub/sub connection.
		 */
		@Override
		void close();

	}

}
