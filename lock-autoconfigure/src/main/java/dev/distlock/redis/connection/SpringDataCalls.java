package dev.distlock.redis.connection;

import java.util.Arrays;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.distlock.thread.DaemonThreads;
import dev.distlock.thread.VirtualThreads;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Runs the calls of a {@link SpringDataLockConnection} on connections of its Spring Data
 * Redis {@link RedisConnectionFactory}: each call takes a connection from the factory and
 * returns it (to a Jedis pool), and waits for the reply within the driver's own timeout
 * ({@code spring.data.redis.timeout}), so that an interrupt of the calling thread cannot
 * lose a reply (see {@link #execute}). Calls whose reply nobody waits for run on a thread
 * of their own.
 */
final class SpringDataCalls implements AutoCloseable {

	private static final String COMMAND_THREAD = "distlock-redis-command";

	private final RedisConnectionFactory factory;

	/**
	 * Runs the commands of virtual threads: see {@link #commandsOfVirtualThreads}.
	 */
	private final @Nullable ExecutorService virtualCommands;

	/** Runs the commands whose reply nobody waits for. */
	private final ExecutorService detached = Executors
		.newSingleThreadExecutor(DaemonThreads.named("distlock-give-back"));

	/** Whether the factory's connections are cluster connections, once one was opened. */
	private volatile boolean cluster;

	SpringDataCalls(RedisConnectionFactory factory) {
		this.factory = factory;
		this.virtualCommands = commandsOfVirtualThreads(factory);
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
	 * Return whether the factory's connections are cluster connections, as far as known:
	 * {@code false} until a connection was opened.
	 */
	boolean isCluster() {
		return this.cluster;
	}

	/**
	 * Run an action on a connection of the factory, as {@link #execute} does.
	 * @return its result, or its failure
	 */
	<T> CompletableFuture<T> call(Function<RedisConnection, @Nullable T> action) {
		return call(() -> execute(action));
	}

	/**
	 * Run an action on a connection of the factory on the thread of the calls whose reply
	 * nobody waits for.
	 * @return its result, or its failure
	 */
	<T> CompletableFuture<T> callDetached(Function<RedisConnection, T> action) {
		return CompletableFuture.supplyAsync(() -> executeHere(action), this.detached);
	}

	/**
	 * Run an action on the calling thread.
	 * @return its result, or its failure
	 */
	@SuppressWarnings("unchecked")
	static <T> CompletableFuture<T> call(Supplier<@Nullable Object> action) {
		try {
			return CompletableFuture.completedFuture((T) action.get());
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
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
	<T> T execute(Function<RedisConnection, T> action) {
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

	/**
	 * Stop the threads of the calls.
	 */
	@Override
	public void close() {
		if (this.virtualCommands != null) {
			this.virtualCommands.shutdownNow();
		}
		this.detached.shutdownNow();
	}

}
