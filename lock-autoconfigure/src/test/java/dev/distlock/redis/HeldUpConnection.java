package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.IntStream;

import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.connection.ReplicatedReply;
import dev.distlock.redis.connection.Script;

/**
 * A connection that holds up the calls of one script on their way to Redis, and their
 * replies on their way back, as a busy pool or a slow network does: the first given
 * number of them, after which that script's calls go at once too, as every other command
 * always does.
 */
final class HeldUpConnection implements LockConnection {

	private final LockConnection connection;

	private final Script script;

	private final Executor there;

	private final Executor back;

	private final AtomicInteger heldUp;

	/**
	 * Hold up calls of the given script on the given connection.
	 * @param connection the connection the calls go through
	 * @param script the script whose calls are held up
	 * @param there how long each is held up before it is sent
	 * @param back how long its reply is held up once Redis answered
	 * @param calls how many calls are held up
	 */
	HeldUpConnection(LockConnection connection, Script script, Duration there, Duration back, int calls) {
		this.connection = connection;
		this.script = script;
		this.there = CompletableFuture.delayedExecutor(there.toNanos(), TimeUnit.NANOSECONDS);
		this.back = CompletableFuture.delayedExecutor(back.toNanos(), TimeUnit.NANOSECONDS);
		this.heldUp = new AtomicInteger(calls);
	}

	@Override
	public CompletableFuture<Long> eval(Script script, String[] keys, String... args) {
		if (!heldUp(script)) {
			return this.connection.eval(script, keys, args);
		}
		return answered(CompletableFuture.supplyAsync(() -> this.connection.eval(script, keys, args), this.there));
	}

	@Override
	public CompletableFuture<Long> evalDetached(Script script, String[] keys, String... args) {
		return this.connection.evalDetached(script, keys, args);
	}

	@Override
	public CompletableFuture<ReplicatedReply> evalAndWait(Script script, int replicas, Duration timeout, String[] keys,
			String... args) {
		return this.connection.evalAndWait(script, replicas, timeout, keys, args);
	}

	@Override
	public List<CompletableFuture<List<Long>>> evalEach(Script script, List<String[]> keys, List<String[]> args) {
		if (!heldUp(script)) {
			return this.connection.evalEach(script, keys, args);
		}
		CompletableFuture<List<CompletableFuture<List<Long>>>> sent = CompletableFuture
			.supplyAsync(() -> this.connection.evalEach(script, keys, args), this.there);
		return IntStream.range(0, keys.size())
			.mapToObj((i) -> answered(sent.thenApply((replies) -> replies.get(i))))
			.toList();
	}

	@Override
	public CompletableFuture<String> ping() {
		return this.connection.ping();
	}

	@Override
	public int batchOf(String key) {
		return this.connection.batchOf(key);
	}

	@Override
	public ReleaseSubscriber subscriber(Consumer<String> onMessage) {
		return this.connection.subscriber(onMessage);
	}

	@Override
	public void close() {
		this.connection.close();
	}

	private boolean heldUp(Script script) {
		return script == this.script && this.heldUp.getAndUpdate((left) -> Math.max(0, left - 1)) > 0;
	}

	private <T> CompletableFuture<T> answered(CompletableFuture<CompletableFuture<T>> sent) {
		return sent.thenCompose(Function.identity()).thenApplyAsync(Function.identity(), this.back);
	}

}
