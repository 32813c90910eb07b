package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockName;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Taking and releasing shared holds through a {@link SharedAttempt} (here a permit of
 * two): admitted while there is room and nobody waits before, queued otherwise, woken by
 * a release with one message to the waiter's process, and nothing left behind by a waiter
 * that gives up or is interrupted.
 */
@Timeout(60)
class SharedAcquirerTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private RedisCommands<String, String> commands;

	@BeforeEach
	void connect() {
		this.commands = this.closer.add(RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))).sync();
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void admitsAsManyHoldersAsThePermitsAndRefusesTheNextWithoutQueueingIt() throws Exception {
		RedisLockRegistry registry = registry();
		RedisHold first = acquire(registry, Duration.ZERO);
		RedisHold second = acquire(registry, Duration.ZERO);
		assertThat(first).isNotNull();
		assertThat(second).isNotNull();
		assertThat(second.fencingToken).isGreaterThan(first.fencingToken);
		assertThat(first.kind).isEqualTo(HoldKind.PERMIT);
		assertThat(acquire(registry(), Duration.ZERO)).isNull();
		assertThat(this.commands.zcard(permitsKey())).isEqualTo(2);
		assertThat(this.commands.exists(queueKey())).isZero();
		registry.release(first);
		registry.release(second);
		assertThat(this.commands.exists(permitsKey(), queueKey())).isZero();
	}

	@Test
	void releaseWakesTheFirstWaiterWithOneMessageToItsProcess() throws Exception {
		RedisLockRegistry holding = registry();
		RedisHold first = acquire(holding, Duration.ZERO);
		acquire(holding, Duration.ZERO);
		RedisLockRegistry waiting = registry();
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		CompletableFuture<@Nullable RedisHold> admitted = waiter.call(() -> acquire(waiting, WAIT));
		waiter.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		CommandStats stats = new CommandStats(this.commands);
		stats.reset();
		holding.release(first);
		RedisHold hold = admitted.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		assertThat(hold).isNotNull();
		assertThat(hold.fencingToken).isGreaterThan(first.fencingToken);
		assertThat(stats.calls()).containsEntry("publish", 1L);
		assertThat(this.commands.exists(queueKey())).isZero();
	}

	@Test
	void interruptedWaiterGivesItsTokenBackAndLeavesTheQueue() throws Exception {
		RedisLockRegistry holding = registry();
		RedisHold first = acquire(holding, Duration.ZERO);
		acquire(holding, Duration.ZERO);
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		RedisLockRegistry waiting = registry();
		CompletableFuture<@Nullable RedisHold> admitted = waiter.call(() -> acquire(waiting, WAIT));
		waiter.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		assertThat(this.commands.zcard(queueKey())).isOne();
		waiter.interrupt();
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> admitted.get(WAIT.toSeconds(), TimeUnit.SECONDS))
			.withCauseInstanceOf(InterruptedException.class);
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.commands.exists(queueKey())).isZero());
		holding.release(first);
		assertThat(this.commands.zcard(permitsKey())).isOne();
	}

	@Test
	void releaseOfTheOnlyPermitWhoseLeaseIsOverKeepsItsPlaceUnrenewableAndTheSetItsLife() throws Exception {
		RedisHold permit = acquire(registry(), Duration.ZERO);
		assertThat(permit).isNotNull();
		RedisClient client = RedisClient.create(redis.server().uri());
		this.closer.add(() -> client.shutdown(Duration.ZERO, Duration.ZERO));
		RedisLockCommands commands = this.closer
			.add(new RedisLockCommands(new LettuceLockConnection(client), RedisLockSettings.of("lock:", LEASE)));
		assertThat(commands.await(commands.releaseShare(permit.id, HoldKind.PERMIT, permit.token, 1_000, true),
				"release permit"))
			.isTrue();
		assertThat(this.commands.zrange(permitsKey(), 0, -1)).containsExactly("released:" + permit.token);
		assertThat(this.commands.pttl(permitsKey())).isBetween(1L, LEASE.toMillis());
	}

	private RedisLockRegistry registry() {
		return this.closer.add(TestLockRegistry.create(redis.server().uri(), LEASE)).registry();
	}

	private static @Nullable RedisHold acquire(RedisLockRegistry registry, Duration waitTime)
			throws InterruptedException {
		LockId id = new LockId(LockName.of("pool"), "lock:pool");
		return registry.acquireShared(new SharedAttempt(id, HoldKind.PERMIT, LuaScript.ACQUIRE_PERMIT, "2"), waitTime);
	}

	private static String permitsKey() {
		return LockKeys.helperKey("lock:pool", LockKeys.PERMITS);
	}

	private static String queueKey() {
		return LockKeys.helperKey("lock:pool", LockKeys.QUEUE);
	}

}
