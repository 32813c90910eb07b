package dev.distlock.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.distlock.DistributedLockException;
import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.TestDriver;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Redis security: a wrong password, and ACL users. {@link #MINIMUM_ACL} is the smallest
 * ACL with which every feature works with the default key prefix {@code lock:} (acquire,
 * wait for a release signal, renew, release, minimum hold time, read locks that a writer
 * waits for, health {@code PING}); each row of {@link #everyRuleOfTheMinimumAclIsNeeded}
 * removes one rule and shows what breaks and the message the user sees. Without
 * {@code +subscribe} nothing breaks: waiters poll instead of waiting for release signals,
 * on every {@link TestDriver}.
 */
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class RedisAclTests {

	/**
	 * The rules of the smallest ACL that works, for the default key prefix, after
	 * {@code resetchannels} (Redis 6.2 gives new users every channel by default).
	 */
	static final List<String> MINIMUM_ACL = List.of("~lock:*", "~{lock:*", "&lock:*", "+evalsha", "+eval", "+set",
			"+time", "+pttl", "+get", "+pexpire", "+del", "+exists", "+zadd", "+zrange", "+zrem", "+zremrangebyscore",
			"+zcard", "+zscore", "+hset", "+hget", "+hdel", "+publish", "+subscribe", "+unsubscribe", "+ping");

	private static final Duration LEASE = Duration.ofMillis(300);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	/** How long a waiter waits: less than a {@link #POLLED_LEASE}. */
	private static final Duration WAIT = Duration.ofSeconds(10);

	/**
	 * The lease of the holders whose waiters poll: longer than their wait, so that only
	 * polling gets them the lock in time.
	 */
	private static final Duration POLLED_LEASE = Duration.ofSeconds(30);

	private static final String POLLING = "Redis refused to subscribe to lock grants";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private RedisCommands<String, String> admin;

	private int users;

	@BeforeEach
	void connect() {
		this.admin = this.closer.add(RedisTestClient.connect(redis.server().uri(), COMMAND_TIMEOUT)).sync();
		this.admin.scriptFlush();
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void wrongPasswordFailsTheFirstCallWithTheConnectionError() {
		RedisServer secured = this.closer.add(RedisServer.start("--requirepass", "secret"));
		TestLockRegistry registry = this.closer
			.add(TestLockRegistry.create("redis://:wrong@127.0.0.1:" + secured.port(),
					RedisLockSettings.of("lock:", LEASE).withCommandTimeout(COMMAND_TIMEOUT)));
		Throwable thrown = catchThrowable(() -> registry.registry().acquire("secured", Duration.ZERO));
		assertThat(thrown).isExactlyInstanceOf(DistributedLockException.class)
			.hasMessage("Could not connect to Redis for locking: Unable to connect to 127.0.0.1/<unresolved>:"
					+ secured.port())
			.hasRootCauseMessage("WRONGPASS invalid username-password pair or user is disabled.");
		TestLockRegistry right = this.closer.add(TestLockRegistry.create("redis://:secret@127.0.0.1:" + secured.port(),
				RedisLockSettings.of("lock:", LEASE).withCommandTimeout(COMMAND_TIMEOUT)));
		right.registry().acquire("secured", Duration.ZERO).release();
	}

	@Test
	void userWithTheMinimumAclCanUseEveryFeature(CapturedOutput output) throws Exception {
		String user = createUser(MINIMUM_ACL);
		System.out
			.println("[acl] minimum: ACL SETUSER " + user + " on >pw resetchannels " + String.join(" ", MINIMUM_ACL));
		exerciseEveryFeature(user);
		assertThat(output).as("waited for release signals").doesNotContain(POLLING);
	}

	static Stream<Arguments> everyRuleOfTheMinimumAclIsNeeded() {
		String inScript = "The user executing the script can't run this command or subcommand";
		return Stream.of(arguments("~lock:*", "NOPERM this user has no permissions to access one of the keys"),
				arguments("~{lock:*", "NOPERM this user has no permissions to access one of the keys"),
				arguments("+evalsha", "NOPERM this user has no permissions to run the 'evalsha' command"),
				arguments("+eval", "NOPERM this user has no permissions to run the 'eval' command"),
				arguments("+set", inScript), arguments("+time", inScript), arguments("+pttl", inScript),
				arguments("+get", inScript), arguments("+pexpire", inScript), arguments("+del", inScript),
				arguments("+exists", inScript), arguments("+zadd", inScript), arguments("+zrange", inScript),
				arguments("+zrem", inScript), arguments("+zremrangebyscore", inScript), arguments("+zcard", inScript),
				arguments("+zscore", inScript), arguments("+hset", inScript), arguments("+hget", inScript),
				arguments("+hdel", inScript), arguments("+publish", inScript),
				arguments("+ping", "NOPERM this user has no permissions to run the 'ping' command"));
	}

	@ParameterizedTest(name = "without {0}")
	@MethodSource
	void everyRuleOfTheMinimumAclIsNeeded(String removed, String failure) {
		List<String> rules = new ArrayList<>(MINIMUM_ACL);
		rules.remove(removed);
		String user = createUser(rules);
		Throwable thrown = catchThrowable(() -> exerciseEveryFeature(user));
		assertThat(thrown).as("without %s", removed).isNotNull();
		System.out.println("[acl] without " + removed + ": " + thrown);
		assertThat(thrown).hasMessageContaining(failure);
	}

	/**
	 * Without {@code +subscribe} Redis refuses {@code SUBSCRIBE}: waiters poll at once,
	 * not after the command timeout, and get a released lock long before the holder's
	 * lease, longer than their wait, would have run out; the switch is logged once. The
	 * refused subscription leaves every pooled connection answering its own commands.
	 */
	@ParameterizedTest(name = "{0}")
	@EnumSource(TestDriver.class)
	void waitersPollWhenRedisRefusesToSubscribe(TestDriver driver, CapturedOutput output) throws Exception {
		List<String> rules = new ArrayList<>(MINIMUM_ACL);
		rules.remove("+subscribe");
		String user = createUser(rules);
		RedisLockSettings settings = RedisLockSettings.of("lock:", POLLED_LEASE).withCommandTimeout(COMMAND_TIMEOUT);
		RedisLockRegistry holder = connect(driver, user, settings).registry();
		RedisLockRegistry waiter = connect(driver, user, settings).registry();
		TestThread waiting = this.closer.add(TestThread.start("waiter"));
		List<String> measured = new ArrayList<>();
		for (String name : List.of("polled", "polled", "polled-too")) {
			LockLease held = holder.acquire(name, Duration.ZERO);
			long startNanos = System.nanoTime();
			CompletableFuture<LockLease> taking = waiting.call(() -> waiter.acquire(name, WAIT));
			awaitWaiting(waiting, taking);
			Duration pollingAfter = Duration.ofNanos(System.nanoTime() - startNanos);
			assertThat(pollingAfter).as("refused at once, not after the command timeout").isLessThan(COMMAND_TIMEOUT);
			long releasedNanos = System.nanoTime();
			held.release();
			LockLease taken = unwrap(taking);
			Duration takenAfter = Duration.ofNanos(System.nanoTime() - releasedNanos);
			assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
			taken.release();
			measured.add(name + ": polling after " + pollingAfter.toMillis() + " ms, acquired " + takenAfter.toMillis()
					+ " ms after the release");
		}
		assertThat(output).containsOnlyOnce(POLLING);
		System.out.println("[acl] " + driver + " without +subscribe: " + String.join("; ", measured));
	}

	/**
	 * A user who may use the channels of some locks only ({@code &lock:a*}) may not use
	 * the registry's grant channel ({@code lock:!grants:<id>}): its waiters poll, for
	 * every lock, neither hang nor keep each other from the lock, and the registry
	 * closes.
	 */
	@ParameterizedTest(name = "{0}")
	@EnumSource(TestDriver.class)
	void waitersOfAUserWithoutTheGrantChannelPoll(TestDriver driver) throws Exception {
		List<String> rules = new ArrayList<>(MINIMUM_ACL);
		rules.set(rules.indexOf("&lock:*"), "&lock:a*");
		String user = createUser(rules);
		RedisLockSettings settings = RedisLockSettings.of("lock:", POLLED_LEASE).withCommandTimeout(COMMAND_TIMEOUT);
		RedisLockRegistry holder = this.closer.add(TestLockRegistry.create(redis.server().uri(), settings)).registry();
		TestLockRegistry waiter = connect(driver, user, settings);
		LockLease allowed = holder.acquire("a1", Duration.ZERO);
		holder.acquire("b1", Duration.ZERO);
		TestThread waitingAllowed = this.closer.add(TestThread.start("waiter-a1"));
		CompletableFuture<LockLease> takingAllowed = waitingAllowed.call(() -> waiter.registry().acquire("a1", WAIT));
		awaitWaiting(waitingAllowed, takingAllowed);
		TestThread waitingRefused = this.closer.add(TestThread.start("waiter-b1"));
		CompletableFuture<Optional<LockLease>> takingRefused = waitingRefused
			.call(() -> waiter.registry().tryAcquire("b1", Duration.ofSeconds(1)));
		await().atMost(COMMAND_TIMEOUT.multipliedBy(3)).until(takingRefused::isDone);
		allowed.release();
		assertThat(unwrap(takingAllowed).fencingToken()).isGreaterThan(allowed.fencingToken());
		CompletableFuture.runAsync(waiter::close).get(10, TimeUnit.SECONDS);
	}

	@Test
	void replicasToAckNeedsWaitToo() {
		String without = createUser(MINIMUM_ACL);
		List<String> rules = new ArrayList<>(MINIMUM_ACL);
		rules.add("+wait");
		String with = createUser(rules);
		RedisLockSettings settings = RedisLockSettings.of("lock:", LEASE)
			.withCommandTimeout(COMMAND_TIMEOUT)
			.withReplicasToAck(1, Duration.ofMillis(10));
		assertThatExceptionOfType(DistributedLockException.class)
			.isThrownBy(() -> registry(without, settings).acquire("acl", Duration.ZERO))
			.withMessageContaining("NOPERM this user has no permissions to run the 'wait' command");
		assertThatExceptionOfType(DistributedLockException.class)
			.isThrownBy(() -> registry(with, settings).acquire("acl", Duration.ZERO))
			.withMessage("Lock 'acl' was refused: 0 of 1 replicas acknowledged it within PT0.01S"
					+ " (distlock.redis.replicas-to-ack)");
	}

	/**
	 * Acquire, wait for a release signal, renew past the lease, release, release with a
	 * minimum hold time, and answer {@code PING}, as the given user; and the same with a
	 * read lock that a writer waits for.
	 */
	private void exerciseEveryFeature(String user) throws Exception {
		RedisLockSettings settings = RedisLockSettings.of("lock:", LEASE).withCommandTimeout(COMMAND_TIMEOUT);
		TestLockRegistry holder = connect(TestDriver.LETTUCE, user, settings);
		RedisLockRegistry waiter = registry(user, settings);
		holder.registry().ping();
		LockLease lease = holder.registry().acquire("acl", Duration.ZERO);
		TestThread waiting = this.closer.add(TestThread.start("waiter"));
		CompletableFuture<LockLease> taking = waiting.call(() -> waiter.acquire("acl", WAIT));
		awaitWaiting(waiting, taking);
		FencedLock reader = holder.registry().readWriteLock("acl-read").readLock();
		reader.lock();
		TestThread writing = this.closer.add(TestThread.start("writer"));
		CompletableFuture<Boolean> written = writing.call(() -> {
			FencedLock writer = waiter.readWriteLock("acl-read").writeLock();
			boolean taken = writer.tryLock(WAIT);
			writer.unlock();
			return taken;
		});
		awaitWaiting(writing, written);
		Thread.sleep(LEASE.toMillis() * 3 / 2);
		if (!holder.lostEvents().isEmpty()) {
			throw new AssertionError("Lost while held: " + holder.lostEvents());
		}
		lease.release();
		unwrap(taking).release();
		reader.unlock();
		unwrap(written);
		holder.registry()
			.tryAcquire("acl-min-hold", Duration.ZERO, LeaseOptions.WATCHDOG.withMinHoldTime(Duration.ofMillis(50)))
			.orElseThrow()
			.release();
	}

	/**
	 * Wait until the waiter waits for the lock's release, subscribed or polling, or throw
	 * what ended its acquisition first.
	 */
	private static void awaitWaiting(TestThread waiter, CompletableFuture<?> taking) throws Exception {
		await().atMost(WAIT)
			.pollInterval(Duration.ofMillis(5))
			.until(() -> waiter.isIn(TestLockRegistry.WAITING_FOR_RELEASE) || taking.isDone());
		if (taking.isDone()) {
			unwrap(taking);
		}
	}

	private static <T> T unwrap(CompletableFuture<T> future) throws Exception {
		try {
			return future.get(10, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof Exception cause) ? cause : ex;
		}
	}

	private RedisLockRegistry registry(String user, RedisLockSettings settings) {
		return connect(TestDriver.LETTUCE, user, settings).registry();
	}

	private TestLockRegistry connect(TestDriver driver, String user, RedisLockSettings settings) {
		return this.closer.add(TestLockRegistry.create(driver,
				"redis://" + user + ":pw@127.0.0.1:" + redis.server().port(), settings));
	}

	private String createUser(List<String> rules) {
		String user = "locker" + (++this.users);
		setUser(this.admin, user, rules);
		return user;
	}

	/**
	 * Create or reset an ACL user with the password {@code pw}, no channels but those the
	 * given rules name, and the given rules.
	 * @param admin a connection allowed to change users
	 * @param user the user's name
	 * @param rules the rules
	 */
	static void setUser(RedisCommands<String, String> admin, String user, List<String> rules) {
		CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("SETUSER")
			.add(user)
			.add("reset")
			.add("on")
			.add(">pw")
			.add("resetchannels");
		rules.forEach(args::add);
		assertThat(admin.dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args)).isEqualTo("OK");
	}

}
