package dev.distlock.redis.connection;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The lock commands on a Spring Data Redis {@link RedisConnectionFactory} other than
 * Lettuce's, which {@link LockConnections} sends on Lettuce's own client: Jedis', or one
 * that wraps another; standalone, Sentinel or Cluster. Each call runs on a connection of
 * the factory through {@link SpringDataCalls}, which keeps an interrupt of the calling
 * thread from losing a reply. A renewal round is pipelined off a cluster. Release
 * messages arrive through a {@link SpringDataReleaseSubscriber}, on a
 * {@link RedisMessageListenerContainer}, which restores its subscriptions after a
 * reconnect.
 */
final class SpringDataLockConnection implements LockConnection {

	private final RedisConnectionFactory factory;

	private final SpringDataCalls calls;

	SpringDataLockConnection(RedisConnectionFactory factory) {
		this.factory = factory;
		this.calls = new SpringDataCalls(factory);
	}

	@Override
	public CompletableFuture<Long> eval(Script script, String[] keys, String... args) {
		return this.calls.call((connection) -> evalsha(connection, script, ReturnType.INTEGER, keys, args));
	}

	@Override
	public CompletableFuture<Long> evalDetached(Script script, String[] keys, String... args) {
		return this.calls.callDetached((connection) -> evalsha(connection, script, ReturnType.INTEGER, keys, args));
	}

	@Override
	public CompletableFuture<ReplicatedReply> evalAndWait(Script script, int replicas, Duration timeout, String[] keys,
			String... args) {
		return this.calls.call((connection) -> {
			if (connection instanceof RedisClusterConnection) {
				throw new UnsupportedOperationException("distlock.redis.replicas-to-ack needs WAIT on the connection "
						+ "that wrote the lock, which Spring Data Redis cluster connections do not promise; "
						+ "use Lettuce (a LettuceConnectionFactory) on Redis Cluster");
			}
			Long reply = evalsha(connection, script, ReturnType.INTEGER, keys, args);
			Long acked = (Long) connection.execute("WAIT", bytes(Integer.toString(replicas)),
					bytes(Long.toString(timeout.toMillis())));
			return new ReplicatedReply(reply, acked);
		});
	}

	@Override
	public List<CompletableFuture<List<Long>>> evalEach(Script script, List<String[]> keys, List<String[]> args) {
		try {
			return this.calls.execute((connection) -> (connection instanceof RedisClusterConnection)
					? evalOneByOne(connection, script, keys, args) : evalPipelined(connection, script, keys, args));
		}
		catch (RuntimeException ex) {
			List<CompletableFuture<List<Long>>> failed = new ArrayList<>(keys.size());
			keys.forEach((each) -> failed.add(CompletableFuture.failedFuture(ex)));
			return failed;
		}
	}

	@Override
	public CompletableFuture<String> ping() {
		return this.calls.call(RedisConnection::ping);
	}

	@Override
	public int batchOf(String key) {
		return this.calls.isCluster() ? ClusterSlotHashUtil.calculateSlot(key) : 0;
	}

	@Override
	public ReleaseSubscriber subscriber(Consumer<String> onMessage) {
		return new SpringDataReleaseSubscriber(this.factory, onMessage);
	}

	@Override
	public void close() {
		this.calls.close();
	}

	private List<CompletableFuture<List<Long>>> evalOneByOne(RedisConnection connection, Script script,
			List<String[]> keys, List<String[]> args) {
		List<CompletableFuture<List<Long>>> replies = new ArrayList<>(keys.size());
		for (int i = 0; i < keys.size(); i++) {
			String[] each = keys.get(i);
			String[] eachArgs = args.get(i);
			replies.add(SpringDataCalls.call(() -> evalsha(connection, script, ReturnType.MULTI, each, eachArgs)));
		}
		return replies;
	}

	/**
	 * Send every call in one pipeline. When one of them failed, most often because Redis
	 * does not have the script cached any more, every call is sent again one by one,
	 * where a missing script is sent whole.
	 */
	private List<CompletableFuture<List<Long>>> evalPipelined(RedisConnection connection, Script script,
			List<String[]> keys, List<String[]> args) {
		connection.openPipeline();
		for (int i = 0; i < keys.size(); i++) {
			connection.scriptingCommands()
				.evalSha(script.sha1(), ReturnType.MULTI, keys.get(i).length, keysAndArgs(keys.get(i), args.get(i)));
		}
		List<@Nullable Object> results;
		try {
			results = connection.closePipeline();
		}
		catch (RedisPipelineException ex) {
			return evalOneByOne(connection, script, keys, args);
		}
		List<CompletableFuture<List<Long>>> replies = new ArrayList<>(keys.size());
		for (Object result : results) {
			replies.add(CompletableFuture.completedFuture(longs(result)));
		}
		return replies;
	}

	private static <T> @Nullable T evalsha(RedisConnection connection, Script script, ReturnType type, String[] keys,
			String[] args) {
		byte[][] keysAndArgs = keysAndArgs(keys, args);
		try {
			return connection.scriptingCommands().evalSha(script.sha1(), type, keys.length, keysAndArgs);
		}
		catch (RuntimeException ex) {
			if (!ErrorReplies.isNoScript(ex)) {
				throw ex;
			}
			return connection.scriptingCommands().eval(bytes(script.source()), type, keys.length, keysAndArgs);
		}
	}

	@SuppressWarnings("unchecked")
	private static List<Long> longs(@Nullable Object reply) {
		return (List<Long>) reply;
	}

	private static byte[][] keysAndArgs(String[] keys, String[] args) {
		return Stream.concat(Arrays.stream(keys), Arrays.stream(args))
			.map(SpringDataLockConnection::bytes)
			.toArray(byte[][]::new);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
