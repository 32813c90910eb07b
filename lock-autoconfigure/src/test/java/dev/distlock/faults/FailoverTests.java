package dev.distlock.faults;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.DistributedLockException;
import dev.distlock.FencedLock;
import dev.distlock.LockLease;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.Replication;
import dev.distlock.testsupport.TcpProxy;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Recipe 5 in docs/design.md#failure-recipes, asynchronous replication: a primary and a
 * replica, the replication link stalled so that replication is held back, a lock acquired
 * on the primary, the primary killed and the replica promoted ({@code REPLICAOF NO ONE}).
 * <p>
 * The replica replicates through a {@link TcpProxy} that holds the stream back. Freezing
 * the replica with {@code SIGSTOP} does not hold replication back on one machine: the
 * primary's writes wait in the replica's socket buffer and are applied when it resumes,
 * even after the primary died, so the lock survives the failover (that is what the first
 * version of this test observed). With the default settings a second client acquires the
 * same lock on the promoted replica while the first still holds it; the fencing tokens
 * tell the two holds apart (the later holder's is greater, issued from the promoted
 * server's clock although the last token was lost with the primary), so a resource that
 * checks them refuses the earlier holder once the later one wrote. With
 * {@code distlock.redis.replicas-to-ack=1} the first acquisition is refused, so the
 * failover cannot grant the lock twice.
 */
@Timeout(60)
class FailoverTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(20);

	private static final Duration ACK_TIMEOUT = Duration.ofMillis(100);

	private static final String REFUSED = "Lock 'payment' was refused: 0 of 1 replicas acknowledged it within PT0.1S"
			+ " (distlock.redis.replicas-to-ack)";

	private final Closer closer = new Closer();

	private RedisServer primary;

	private RedisServer replica;

	private TcpProxy replicationLink;

	@BeforeEach
	void startPrimaryAndReplica() {
		this.primary = this.closer.add(RedisServer.start());
		this.replicationLink = this.closer.add(TcpProxy.start(this.primary.port()));
		this.replica = this.closer
			.add(RedisServer.start("--replicaof", "127.0.0.1", String.valueOf(this.replicationLink.port())));
		await().atMost(SYNC_TIMEOUT)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> info(this.replica).contains("master_link_status:up"));
	}

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void failoverBeforeReplicationGrantsTheLockTwiceWithDefaultSettings() {
		TestLockRegistry first = registry(this.primary, RedisLockSettings.of("lock:", LEASE));
		long replicated = 0;
		for (int i = 0; i < 3; i++) {
			try (LockLease lease = first.registry().acquire("payment", Duration.ZERO)) {
				replicated = lease.fencingToken();
			}
		}
		Replication.awaitAcknowledged(this.primary, SYNC_TIMEOUT);
		this.replicationLink.stall();
		LockLease firstHold = first.registry().acquire("payment", Duration.ZERO);
		assertThat(firstHold.fencingToken()).isGreaterThan(replicated);
		failOver();
		TestLockRegistry second = registry(this.replica, RedisLockSettings.of("lock:", LEASE));
		LockLease secondHold = second.registry().acquire("payment", Duration.ZERO);
		assertThat(firstHold.isValid()).as("first holder, unaware of the failover, still believes").isTrue();
		assertThat(secondHold.isValid()).isTrue();
		assertThat(secondHold.fencingToken())
			.as("the later holder's token, although the last was lost with the primary")
			.isGreaterThan(firstHold.fencingToken());
		System.out.println("[failover] default settings: lock 'payment' held twice, fencing tokens "
				+ firstHold.fencingToken() + " and " + secondHold.fencingToken());
	}

	@Test
	void replicasToAckRefusesAnAcquisitionNoReplicaConfirmedSoFailoverCannotGrantItTwice() {
		TestLockRegistry first = acknowledgedRegistry(LEASE);
		first.registry().acquire("payment", Duration.ZERO).release();
		Replication.awaitAcknowledged(this.primary, SYNC_TIMEOUT);
		this.replicationLink.stall();
		assertThatExceptionOfType(DistributedLockException.class)
			.isThrownBy(() -> first.registry().acquire("payment", Duration.ZERO))
			.withMessage(REFUSED);
		assertThat(first.registry().heldLocks()).isEmpty();
		try (RedisTestClient client = RedisTestClient.connect(this.primary.uri(), COMMAND_TIMEOUT)) {
			await().atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(10))
				.untilAsserted(() -> assertThat(client.sync().exists("lock:payment"))
					.as("the refused acquisition is released on the primary")
					.isZero());
		}
		failOver();
		TestLockRegistry second = registry(this.replica, RedisLockSettings.of("lock:", LEASE));
		LockLease secondHold = second.registry().acquire("payment", Duration.ZERO);
		assertThat(secondHold.isValid()).isTrue();
		assertThat(first.registry().heldLocks()).as("nobody else holds 'payment'").isEmpty();
		System.out.println("[failover] replicas-to-ack=1: first acquisition refused; after failover one holder,"
				+ " fencing token " + secondHold.fencingToken());
	}

	@Test
	void replicasToAckAcquisitionsSucceedAndAreOnTheReplicaWhenTheyReturn() {
		// A replica that works acknowledges within milliseconds; the timeout is generous
		// so that a busy machine does not refuse it.
		TestLockRegistry registry = registry(this.primary,
				RedisLockSettings.of("lock:", LEASE).withReplicasToAck(1, Duration.ofSeconds(1)));
		try (RedisTestClient onReplica = RedisTestClient.connect(this.replica.uri(), COMMAND_TIMEOUT)) {
			RedisCommands<String, String> replicaCommands = onReplica.sync();
			long previous = 0;
			for (int i = 0; i < 20; i++) {
				LockLease lease = registry.registry().acquire("payment", Duration.ZERO);
				assertThat(lease.fencingToken()).isGreaterThan(previous);
				previous = lease.fencingToken();
				assertThat(replicaCommands.exists("lock:payment")).as("lock key on the replica").isOne();
				assertThat(replicaCommands.get("{lock:payment}!fence")).isEqualTo(Long.toString(previous));
				lease.release();
			}
		}
	}

	/**
	 * A hand-over within one JVM is a grant too. Thread A holds "payment", acquired while
	 * replication ran and with nobody queued, so that its release hands over with the
	 * transfer script; the replication link stalls; thread W of the same registry waits
	 * for the lock and A unlocks. The transfer must wait for a replica like an
	 * acquisition: refused, it is given back, and W's own acquisition is refused in turn.
	 * After the failover another registry takes the lock on the promoted replica (once
	 * A's replicated lease ran out) while W holds nothing.
	 */
	@Test
	void replicasToAckRefusesAHandOverNoReplicaConfirmedSoFailoverCannotGrantItTwice() throws Exception {
		TestThread holder = this.closer.add(TestThread.start("holder"));
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		TestLockRegistry first = acknowledgedRegistry(Duration.ofSeconds(3));
		first.registry().acquire("payment", Duration.ZERO).release();
		FencedLock lock = first.registry().obtain("payment");
		holder.run(lock::lock).get(10, TimeUnit.SECONDS);
		Replication.awaitAcknowledged(this.primary, SYNC_TIMEOUT);
		this.replicationLink.stall();
		CompletableFuture<Boolean> waiting = waiter.call(() -> lock.tryLock(Duration.ofSeconds(5)));
		waiter.awaitIn("dev.distlock.redis.ReleaseSignals$Subscription.await", Duration.ofSeconds(5));
		holder.run(lock::unlock).get(10, TimeUnit.SECONDS);
		assertThat(waiting).failsWithin(Duration.ofSeconds(10))
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(DistributedLockException.class)
			.withMessage(REFUSED);
		assertThat(first.registry().heldLocks()).isEmpty();
		failOver();
		TestLockRegistry second = registry(this.replica, RedisLockSettings.of("lock:", LEASE));
		LockLease secondHold = second.registry().tryAcquire("payment", Duration.ofSeconds(10)).orElseThrow();
		assertThat(secondHold.isValid()).isTrue();
		assertThat(first.registry().heldLocks()).as("nobody else holds 'payment'").isEmpty();
	}

	/**
	 * Redis forgot its scripts ({@code SCRIPT FLUSH}, as after a restart), everything
	 * written so far is replicated, then the replication link stalls: the acquire script
	 * runs with {@code EVAL} after {@code EVALSHA} failed. The {@code WAIT} must count
	 * the replicas that have what that {@code EVAL} wrote, not return at once because
	 * everything before it was replicated. (That early {@code WAIT} also made
	 * {@link #replicasToAckAcquisitionsSucceedAndAreOnTheReplicaWhenTheyReturn} fail now
	 * and then: its first acquisition on a fresh server was not on the replica yet.)
	 */
	@Test
	void replicasToAckCountsTheReplicasOfAScriptResentAfterRedisForgotIt() {
		TestLockRegistry first = acknowledgedRegistry(LEASE);
		first.registry().acquire("payment", Duration.ZERO).release();
		try (RedisTestClient client = RedisTestClient.connect(this.primary.uri(), COMMAND_TIMEOUT)) {
			assertThat(client.sync().scriptFlush()).isEqualTo("OK");
		}
		Replication.awaitAcknowledged(this.primary, SYNC_TIMEOUT);
		this.replicationLink.stall();
		assertThatExceptionOfType(DistributedLockException.class)
			.isThrownBy(() -> first.registry().acquire("payment", Duration.ZERO))
			.withMessage(REFUSED);
		assertThat(first.registry().heldLocks()).isEmpty();
	}

	/**
	 * Kill the primary, drop what the replication link still held, promote the replica.
	 */
	private void failOver() {
		this.primary.kill();
		this.replicationLink.cutConnections();
		promote(this.replica);
	}

	/**
	 * A registry on the primary that waits for one replica to acknowledge every grant.
	 */
	private TestLockRegistry acknowledgedRegistry(Duration leaseTime) {
		return registry(this.primary, RedisLockSettings.of("lock:", leaseTime).withReplicasToAck(1, ACK_TIMEOUT));
	}

	private TestLockRegistry registry(RedisServer server, RedisLockSettings settings) {
		return this.closer.add(TestLockRegistry.create(server.uri(), settings.withCommandTimeout(COMMAND_TIMEOUT)));
	}

	private static void promote(RedisServer replica) {
		try (RedisTestClient client = RedisTestClient.connect(replica.uri(), COMMAND_TIMEOUT)) {
			assertThat(client.sync().replicaofNoOne()).isEqualTo("OK");
			await().atMost(SYNC_TIMEOUT)
				.pollInterval(Duration.ofMillis(20))
				.until(() -> client.sync().info("replication").contains("role:master"));
		}
	}

	private static String info(RedisServer server) {
		try (RedisTestClient client = RedisTestClient.connect(server.uri(), COMMAND_TIMEOUT)) {
			return client.sync().info("replication");
		}
	}

}
