package dev.distlock.redis.connection;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

import dev.distlock.thread.DaemonThreads;
import dev.distlock.thread.VirtualThreads;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.ReturnType;

/**
 * The lock commands on a Spring Data Redis {@link RedisConnectionFactory} other than
 * Lettuce's, which {@link LockConnections} sends on Lettuce's own client: Jedis', or one
 * that wraps another; standalone, Sentinel or Cluster. Each call takes a connection from
 * the factory and gives it back (to a Jedis pool), and waits for the reply within the
 * driver's own timeout ({@code spring.data.redis.timeout}), so that an interrupt of the
 * calling thread cannot lose a reply (see {@link #execute}); a call whose reply nobody
 * waits for runs on a thread of its own. A renewal round is pipelined off a cluster.
 */
final class SpringDataLockConnection implements LockConnection {

	private static final String COMMAND_THREAD = "distlock-redis-command";

	private final RedisConnectionFactory factory;

	/** Runs the commands of virtual threads: see {@link #commandsOfVirtualThreads}. */
	private final @Nullable ExecutorService virtualCommands;

	/** Runs the commands whose reply nobody waits for. */
	private final ExecutorService detached = Executors
		.newSingleThreadExecutor(DaemonThreads.named("distlock-give-back"));

	/** Whether the factory's connections are cluster connections, once one was opened. */
	private volatile boolean cluster;

	SpringDataLockConnection(RedisConnectionFactory factory) {
		this.factory = factory;
		this.virtualCommands = commandsOfVirtualThreads(factory);
	}

	@Override
	public CompletableFuture<Long> eval(Script script, String[] keys, String... args) {
		return call(() -> execute((connection) -> evalsha(connection, script, ReturnType.INTEGER, keys, args)));
	}

	@Override
	public CompletableFuture<Long> evalDetached(Script script, String[] keys, String... args) {
		return CompletableFuture.supplyAsync(
				() -> executeHere((connection) -> evalsha(connection, script, ReturnType.INTEGER, keys, args)),
				this.detached);
	}

	@Override
	public CompletableFuture<ReplicatedReply> evalAndWait(Script script, int replicas, Duration timeout, String[] keys,
			String... args) {
		return call(() -> execute((connection) -> {
			if (connection instanceof RedisClusterConnection) {
				throw new UnsupportedOperationException("distlock.redis.replicas-to-ack needs WAIT on the connection "
						+ "that wrote the lock, which Spring Data Redis cluster connections do not promise; "
						+ "use Lettuce (a LettuceConnectionFactory) on Redis Cluster");
			}
			Long reply = evalsha(connection, script, ReturnType.INTEGER, keys, args);
			Long acked = (Long) connection.execute("WAIT", bytes(Integer.toString(replicas)),
					bytes(Long.toString(timeout.toMillis())));
			return new ReplicatedReply(reply, acked);
		}));
	}

	@Override
	public List<CompletableFuture<List<Long>>> evalEach(Script script, List<String[]> keys, List<String[]> args) {
		try {
			return execute((connection) -> (connection instanceof RedisClusterConnection)
					? evalOneByOne(connection, script, keys, args) : evalPipelined(connection, script, keys, args));
		}
		catch (RuntimeException ex) {
			return Collections.nCopies(keys.size(), CompletableFuture.failedFuture(ex));
		}
	}

	@Override
	public CompletableFuture<String> ping() {
		return call(() -> execute(RedisConnection::ping));
	}

	@Override
	public int batchOf(String key) {
		return this.cluster ? ClusterSlotHashUtil.calculateSlot(key) : 0;
	}

	@Override
	public ReleaseSubscriber subscriber(Consumer<String> onMessage) {
		return new SpringDataReleaseSubscriber(this.factory, onMessage);
	}

	@Override
	public void close() {
		if (this.virtualCommands != null) {
			this.virtualCommands.shutdownNow();
		}
		this.detached.shutdownNow();
	}

	/**
	 * Return the executor of the commands of virtual threads: a virtual thread per
	 * command, so that as many virtual threads as wait for Redis at once cost no platform
	 * thread each, except on a factory that lends its connections from a bounded pool
	 * (Jedis'). There, one platform thread per pooled connection runs them, as many as
	 * can talk to Redis at once anyway: a thread that Commons Pool keeps waiting while
	 * the pool grows and that has no maximum wait spins without parking, and a virtual
	 * thread spinning so keeps its carrier; enough of them (as many as there are
	 * processors) starve the virtual threads whose connections would let the pool grow,
	 * for good on a JDK whose socket reads are polled by virtual threads (22 and later).
	 * @return the executor, or {@code null} on a JDK without virtual threads where a
	 * thread per command would be
	 */
	private static @Nullable ExecutorService commandsOfVirtualThreads(RedisConnectionFactory factory) {
		OptionalInt pooled = LockConnections.maxTotalOf(factory);
		if (pooled.isPresent()) {
			return Executors.newFixedThreadPool(pooled.getAsInt(), DaemonThreads.named(COMMAND_THREAD));
		}
		return VirtualThreads.newThreadPerTaskExecutor(COMMAND_THREAD);
	}

	/**
	 * Run an action on a connection of the factory, and wait for it whatever interrupts
	 * the caller, keeping the interrupt for afterwards. A virtual thread's socket is
	 * closed when it is interrupted in a read, so that a release that Redis ran would
	 * fail: a virtual caller's calls run on a thread of {@link #virtualCommands}, which
	 * nobody interrupts. A platform thread's blocking read (Jedis') ignores interrupts,
	 * and runs the action itself, with a pending interrupt set aside meanwhile so that
	 * borrowing a connection from an exhausted pool does not fail on it; an interrupt
	 * that comes while it waits for such a connection ends that wait, before anything was
	 * sent, and the action is run again. The wait is bounded by the driver's timeout.
	 */
	private <T> T execute(Function<RedisConnection, T> action) {
		ExecutorService offCaller = VirtualThreads.isVirtual(Thread.currentThread()) ? this.virtualCommands : null;
		if (offCaller == null) {
			boolean interrupted = Thread.interrupted();
			try {
				while (true) {
					try {
						return executeHere(action);
					}
					catch (RuntimeException ex) {
						if (!interruptedWhileBorrowing(ex)) {
							throw ex;
						}
						interrupted = true;
					}
				}
			}
			finally {
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
		}
		try {
			return CompletableFuture.supplyAsync(() -> executeHere(action), offCaller).join();
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

	/**
	 * Tell whether an action failed because its thread was interrupted while it waited to
	 * borrow a connection from the factory's pool: the only wait of a platform thread's
	 * command that an interrupt ends, so that the command was never sent and can be sent
	 * again.
	 */
	private static boolean interruptedWhileBorrowing(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InterruptedException && Arrays.stream(cause.getStackTrace())
				.anyMatch((frame) -> frame.getMethodName().equals("borrowObject")
						&& frame.getClassName().startsWith("org.apache.commons.pool2."))) {
				return true;
			}
		}
		return false;
	}

	private <T> T executeHere(Function<RedisConnection, T> action) {
		try (RedisConnection connection = this.factory.getConnection()) {
			this.cluster = connection instanceof RedisClusterConnection;
			return action.apply(connection);
		}
	}

	private List<CompletableFuture<List<Long>>> evalOneByOne(RedisConnection connection, Script script,
			List<String[]> keys, List<String[]> args) {
		List<CompletableFuture<List<Long>>> replies = new ArrayList<>(keys.size());
		for (int i = 0; i < keys.size(); i++) {
			String[] each = keys.get(i);
			String[] eachArgs = args.get(i);
			replies.add(call(() -> evalsha(connection, script, ReturnType.MULTI, each, eachArgs)));
		}
		return replies;
	}

	/**
	 * Send every call in one pipeline. When one of them failed, most often because Redis
	 * does not have the script cached any more, every call is sent again one by one,
	 * where a missing script is sent whole.
	 */
	@SuppressWarnings("unchecked")
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
		return results.stream().map((result) -> CompletableFuture.completedFuture((List<Long>) result)).toList();
	}

	/**
	 * Run an action on the calling thread.
	 * @return its result, or its failure
	 */
	@SuppressWarnings("unchecked")
	private static <T> CompletableFuture<T> call(Supplier<@Nullable Object> action) {
		try {
			return CompletableFuture.completedFuture((T) action.get());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
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

	private static byte[][] keysAndArgs(String[] keys, String[] args) {
		return Stream.concat(Arrays.stream(keys), Arrays.stream(args))
			.map(SpringDataLockConnection::bytes)
			.toArray(byte[][]::new);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
