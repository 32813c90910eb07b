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
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Redis security: a wrong password, and ACL users. {@link #MINIMUM_ACL} is the smallest
 * ACL with which every feature works with the default key prefix {@code lock:} (acquire,
 * wait for a release signal, renew, release, minimum hold time, health {@code PING});
 * each row of {@link #everyRuleOfTheMinimumAclIsNeeded} removes one rule and shows what
 * breaks and the message the user sees.
 */
@Timeout(120)
class RedisAclTests {

	/**
	 * The rules of the smallest ACL that works, for the default key prefix, after
	 * {@code resetchannels} (Redis 6.2 gives new users every channel by default).
	 */
	static final List<String> MINIMUM_ACL = List.of("~lock:*", "~{lock:*", "&lock:*", "+evalsha", "+eval", "+set",
			"+time", "+pttl", "+get", "+pexpire", "+del", "+publish", "+subscribe", "+unsubscribe", "+ping");

	private static final Duration LEASE = Duration.ofMillis(300);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

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
	void userWithTheMinimumAclCanUseEveryFeature() throws Exception {
		String user = createUser(MINIMUM_ACL);
		System.out
			.println("[acl] minimum: ACL SETUSER " + user + " on >pw resetchannels " + String.join(" ", MINIMUM_ACL));
		exerciseEveryFeature(user);
	}

	static Stream<Arguments> everyRuleOfTheMinimumAclIsNeeded() {
		String inScript = "The user executing the script can't run this command or subcommand";
		return Stream.of(arguments("~lock:*", "NOPERM this user has no permissions to access one of the keys"),
				arguments("~{lock:*", "NOPERM this user has no permissions to access one of the keys"),
				arguments("&lock:*", "NOPERM this user has no permissions to access one of the channels"),
				arguments("+evalsha", "NOPERM this user has no permissions to run the 'evalsha' command"),
				arguments("+eval", "NOPERM this user has no permissions to run the 'eval' command"),
				arguments("+set", inScript), arguments("+time", inScript), arguments("+pttl", inScript),
				arguments("+get", inScript), arguments("+pexpire", inScript), arguments("+del", inScript),
				arguments("+publish", inScript),
				arguments("+subscribe", "NOPERM this user has no permissions to run the 'subscribe' command"),
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
	 * minimum hold time, and answer {@code PING}, as the given user.
	 */
	private void exerciseEveryFeature(String user) throws Exception {
		RedisLockSettings settings = RedisLockSettings.of("lock:", LEASE).withCommandTimeout(COMMAND_TIMEOUT);
		TestLockRegistry holder = this.closer
			.add(TestLockRegistry.create("redis://" + user + ":pw@127.0.0.1:" + redis.server().port(), settings));
		var waiter = registry(user, settings);
		holder.registry().ping();
		LockLease lease = holder.registry().acquire("acl", Duration.ZERO);
		CompletableFuture<Optional<LockLease>> waiting = CompletableFuture
			.supplyAsync(() -> waiter.tryAcquire("acl", Duration.ofSeconds(10)));
		awaitSubscriber("lock:acl", waiting);
		Thread.sleep(LEASE.toMillis() * 3 / 2);
		if (!holder.lostEvents().isEmpty()) {
			throw new AssertionError("Lost while held: " + holder.lostEvents());
		}
		lease.release();
		LockLease next = unwrap(waiting).orElseThrow();
		next.release();
		holder.registry()
			.tryAcquire("acl-min-hold", Duration.ZERO, LeaseOptions.WATCHDOG.withMinHoldTime(Duration.ofMillis(50)))
			.orElseThrow()
			.release();
	}

	private void awaitSubscriber(String channel, CompletableFuture<?> waiting) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (this.admin.pubsubNumsub(channel).get(channel) != 1L) {
			if (waiting.isDone()) {
				unwrap(waiting);
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("nobody subscribed to the release signals of " + channel);
			}
			Thread.sleep(10);
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

	private dev.distlock.redis.RedisLockRegistry registry(String user, RedisLockSettings settings) {
		return this.closer
			.add(TestLockRegistry.create("redis://" + user + ":pw@127.0.0.1:" + redis.server().port(), settings))
			.registry();
	}

	private String createUser(List<String> rules) {
		String user = "locker" + (++this.users);
		CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("SETUSER")
			.add(user)
			.add("reset")
			.add("on")
			.add(">pw")
			.add("resetchannels");
		rules.forEach(args::add);
		assertThat(this.admin.dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args)).isEqualTo("OK");
		return user;
	}

}
