package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.distlock.DistributedLockException;
import dev.distlock.FencedLock;
import dev.distlock.Leadership;
import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockObserver;
import dev.distlock.fencing.RedisFence;
import dev.distlock.fencing.StaleFencingTokenException;
import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.connection.LockConnections;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.CommandStats;
import dev.distlock.testsupport.LettuceClients;
import dev.distlock.testsupport.LiveThreads;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TcpProxy;
import dev.distlock.testsupport.TestThread;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A {@link RedisLockRegistry} on a quorum of independent {@code redis-server} processes
 * (Redlock), three or five: it locks with a minority of the nodes killed and fails within
 * the command timeout without a majority, also when the majority goes silent between a
 * hold's grant and its fencing write-back; a paused node holds up no caller and ties up
 * no thread per command while its connections open, and one down when they opened is
 * heard once it is back; a renewal, release or hand-over that nodes that did not answer
 * leave undecided fails without the hold being reported lost, and a lock they may hold is
 * never told free; a node restarted empty while a lock is held lets no second client in;
 * a holder cut off past its validity loses its lock, is told so, and its fenced write is
 * refused; fencing tokens increase across holders although no single node orders them;
 * and clients on the two sides of a partition never both hold the lock.
 */
@Timeout(90)
class RedlockTests {

	private static final Duration LEASE = Duration.ofMillis(1500);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	/** How long a node must have been up to grant a lock of {@link #LEASE}. */
	private static final Duration RESTART_DELAY = QuorumNodes.minUptime(LEASE);

	private static final RedisLockSettings SETTINGS = TestLockRegistry.settings(LEASE)
		.withCommandTimeout(COMMAND_TIMEOUT);

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@ParameterizedTest(name = "{0} nodes")
	@ValueSource(ints = { 3, 5 })
	void locksLeasesAndRenewalsWorkWithAMinorityOfTheNodesKilled(int count) throws Exception {
		QuorumNodes nodes = nodes(count);
		TestLockRegistry holder = registry(nodes.uris());
		TestLockRegistry rival = registry(nodes.uris());
		for (int i = 0; i < (count - 1) / 2; i++) {
			nodes.node(i).kill();
		}
		long previous = 0;
		for (int i = 0; i < 5; i++) {
			long startNanos = System.nanoTime();
			// The rival's refused attempt may still reach a node after the release: the
			// holder's next attempt may find it there and retry
			try (LockLease lease = holder.registry().acquire("ledger", COMMAND_TIMEOUT)) {
				assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).as("not waiting for the killed nodes")
					.isLessThan(COMMAND_TIMEOUT);
				assertThat(lease.fencingToken()).isGreaterThan(previous);
				assertThat(rival.registry().tryAcquire("ledger", Duration.ZERO)).isEmpty();
				previous = lease.fencingToken();
			}
		}
		FencedLock lock = holder.registry().obtain("report");
		assertThat(lock.tryLock()).isTrue();
		Thread.sleep(LEASE.multipliedBy(3).toMillis());
		assertThat(lock.currentHold().isValid()).as("renewed for three leases").isTrue();
		assertThat(rival.registry().tryAcquire("report", Duration.ZERO)).isEmpty();
		assertThat(holder.lostEvents()).isEmpty();
		lock.unlock();
		assertThat(rival.registry().tryAcquire("report", Duration.ZERO)).isPresent();
	}

	@ParameterizedTest(name = "{0} nodes")
	@ValueSource(ints = { 3, 5 })
	void minorityOfPausedNodesDelaysNoAcquisitionAndCatchesUpWhenResumed(int count) throws Exception {
		QuorumNodes nodes = nodes(count);
		TestLockRegistry registry = registry(nodes.uris());
		TestLockRegistry rival = registry(nodes.uris());
		List<RedisServer> paused = new ArrayList<>();
		for (int i = 0; i < (count - 1) / 2; i++) {
			paused.add(nodes.node(i));
		}
		paused.forEach(RedisServer::pause);
		long previous = 0;
		for (int i = 0; i < 5; i++) {
			long startNanos = System.nanoTime();
			try (LockLease lease = registry.registry().acquire("ledger", Duration.ZERO)) {
				assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).as("not waiting for the paused nodes")
					.isLessThan(COMMAND_TIMEOUT);
				assertThat(lease.fencingToken()).isGreaterThan(previous);
				previous = lease.fencingToken();
			}
		}
		paused.forEach(RedisServer::resume);
		// What the paused nodes run late (grants, then their releases) leaves the lock
		// free
		long last = previous;
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			Optional<LockLease> lease = rival.registry().tryAcquire("ledger", Duration.ZERO);
			assertThat(lease).isPresent();
			assertThat(lease.get().fencingToken()).isGreaterThan(last);
			lease.get().release();
		});
	}

	@Test
	void nodePausedAfterItsFirstCommandDelaysNoWaiterThatSubscribesLater() throws Exception {
		QuorumNodes nodes = nodes(3);
		TestLockRegistry registry = registry(nodes.uris());
		TestLockRegistry rival = registry(nodes.uris());
		// Opens every node's command connection, and no subscription: it does not wait
		registry.registry().tryAcquire("report", Duration.ZERO).orElseThrow().release();
		LockLease held = rival.registry().acquire("ledger", Duration.ZERO);
		// Every node but the paused one is to refuse the registry's attempt
		awaitOnEveryNode(clients(nodes), "lock:ledger", true);
		nodes.node(0).pause();
		long startNanos = System.nanoTime();
		assertThat(registry.registry().tryAcquire("ledger", Duration.ofMillis(200))).isEmpty();
		assertThat(Duration.ofNanos(System.nanoTime() - startNanos))
			.as("subscribing to grants without waiting for the paused node")
			.isLessThan(COMMAND_TIMEOUT);
		held.release();
		nodes.node(0).resume();
	}

	@Test
	void nodePausedBeforeTheFirstCommandTiesUpNoThreadPerCommand() throws Exception {
		QuorumNodes nodes = nodes(3);
		nodes.node(0).pause();
		Set<String> before = LiveThreads.now();
		TestLockRegistry registry = registry(nodes.uris());
		for (int i = 0; i < 20; i++) {
			registry.registry().tryAcquire("ledger", Duration.ZERO).orElseThrow().release();
		}
		Set<String> threads = LiveThreads.now();
		threads.removeAll(before);
		assertThat(threads).filteredOn((thread) -> thread.startsWith("distlock-redlock-connect#"))
			.as("at most one opening per node at a time")
			.hasSizeLessThanOrEqualTo(3);
		nodes.node(0).resume();
		try (LockLease lease = registry.registry().acquire("ledger", COMMAND_TIMEOUT)) {
			assertThat(lease.fencingToken()).isPositive();
		}
	}

	@Test
	void nodeDownWhenTheFirstWaiterSubscribedIsSubscribedToGrantsAtAWaitAfterItCameBack() throws Exception {
		QuorumNodes nodes = nodes(3);
		nodes.node(2).kill();
		TestLockRegistry registry = registry(nodes.uris());
		LockLease held = registry(nodes.uris()).registry().acquire("ledger", Duration.ZERO);
		// Subscribed on nodes 0 and 1, a majority; the connection to node 2 failed to
		// open
		assertThat(registry.registry().tryAcquire("ledger", Duration.ofMillis(100))).isEmpty();
		nodes.node(2).restart();
		assertThat(registry.registry().tryAcquire("ledger", Duration.ofMillis(100))).isEmpty();
		String channel;
		try (RedisTestClient client = RedisTestClient.connect(nodes.node(0).uri(), COMMAND_TIMEOUT)) {
			channel = client.sync().pubsubChannels().get(0);
		}
		try (RedisTestClient client = RedisTestClient.connect(nodes.node(2).uri(), COMMAND_TIMEOUT)) {
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(client.sync().pubsubNumsub(channel)).containsEntry(channel, 1L));
		}
		held.release();
	}

	@Test
	void subscriptionThatAMajorityOfTheNodesWasDownForSucceedsOnceTheyAreBack() throws Exception {
		QuorumNodes nodes = nodes(3);
		nodes.node(0).kill();
		nodes.node(1).kill();
		List<String> messages = new CopyOnWriteArrayList<>();
		LockConnection.ReleaseSubscriber subscriber = this.closer
			.add(commandsOn(nodes.uris()).subscriber(messages::add));
		assertThat(subscriber.subscribe("grants")).failsWithin(Duration.ofSeconds(5))
			.withThrowableThat()
			.havingCause()
			.withMessageContaining(
					"Redis nodes answered to subscribe to lock grants on 'grants', fewer than the majority");
		nodes.node(0).restart();
		nodes.node(1).restart();
		assertThat(subscriber.subscribe("grants")).succeedsWithin(Duration.ofSeconds(5));
		// The majority that answered may be any two nodes, and the third may still be
		// connecting: a grant message is published on every node until one delivers it
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			for (String uri : nodes.uris()) {
				try (RedisTestClient client = RedisTestClient.connect(uri, COMMAND_TIMEOUT)) {
					client.sync().publish("grants", "lock:ledger");
				}
			}
			return messages.contains("lock:ledger");
		});
	}

	@ParameterizedTest(name = "{0} nodes")
	@ValueSource(ints = { 3, 5 })
	void acquisitionFailsWithinTheCommandTimeoutWhenAMajorityOfTheNodesIsDown(int count) {
		QuorumNodes nodes = nodes(count);
		TestLockRegistry registry = registry(nodes.uris());
		registry.registry().acquire("ledger", Duration.ZERO).release();
		for (int i = 0; i < count / 2 + 1; i++) {
			nodes.node(i).kill();
		}
		long startNanos = System.nanoTime();
		assertThatExceptionOfType(DistributedLockException.class)
			.isThrownBy(() -> registry.registry().tryAcquire("ledger", Duration.ofSeconds(10)))
			.withMessageContaining("Redis nodes answered to acquire lock 'ledger', fewer than the majority of")
			.withMessageContaining("(distlock.redlock.nodes)");
		assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).as("within the command timeout, and a margin")
			.isLessThan(COMMAND_TIMEOUT.plusMillis(500));
	}

	@Test
	void acquisitionThatAPausedMajorityOfTheNodesDoesNotAnswerSaysHowLongItWaited() {
		QuorumNodes nodes = nodes(3);
		TestLockRegistry registry = registry(nodes.uris());
		registry.registry().acquire("ledger", Duration.ZERO).release();
		nodes.node(0).pause();
		nodes.node(1).pause();
		try {
			assertThatExceptionOfType(DistributedLockException.class)
				.isThrownBy(() -> registry.registry().tryAcquire("ledger", Duration.ZERO))
				// The quorum's wait for the nodes ends first, or, when its timer
				// runs late on a busy machine, the driver's command timeout: either
				// says how long
				.withMessageMatching(".*Only 1 of 3 Redis nodes answered to acquire lock 'ledger', fewer than the"
						+ " majority of 2 \\(distlock\\.redlock\\.nodes\\); the first failure: (no answer within 900 ms"
						+ "|Command timed out after 1 second\\(s\\))");
		}
		finally {
			nodes.node(0).resume();
			nodes.node(1).resume();
		}
	}

	@Test
	void nodeRestartedEmptyWhileALockIsHeldLetsNoSecondClientIn() throws Exception {
		QuorumNodes nodes = nodes(3);
		TestLockRegistry holder = registry(nodes.uris());
		TestLockRegistry rival = registry(nodes.uris());
		nodes.node(2).kill();
		LockLease lease = holder.registry().acquire("job", Duration.ZERO);
		nodes.node(2).restart();
		nodes.awaitUp(RESTART_DELAY);
		assertThat(lease.isValid()).as("held on the first two nodes, renewed there").isTrue();
		// Nodes 0 (restarted empty) and 2 (never granted it) would make a majority
		long validUntilNanos = System.nanoTime() + lease.remainingLease().toNanos();
		nodes.node(0).kill();
		nodes.node(0).restart();
		int attempts = 0;
		while (System.nanoTime() - validUntilNanos < 0) {
			Optional<LockLease> taken = rival.registry().tryAcquire("job", Duration.ZERO);
			assertThat(taken).as("while the holder's lease may be valid").isEmpty();
			attempts++;
			Thread.sleep(20);
		}
		assertThat(attempts).isPositive();
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(
					() -> assertThat(holder.lostEvents()).extracting(LockLostEvent::name).containsExactly("job"));
		LockLease next = await().atMost(RESTART_DELAY.plusSeconds(5))
			.until(() -> rival.registry().tryAcquire("job", Duration.ZERO), Optional::isPresent)
			.orElseThrow();
		assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
		next.release();
	}

	@Test
	void holdWhoseRenewalOneOfItsTwoNodesMissesOnceIsRenewedAfterwardsAndNotLost() throws Exception {
		QuorumNodes nodes = nodes(3);
		Duration lease = Duration.ofSeconds(3);
		nodes.awaitUp(QuorumNodes.minUptime(lease));
		TestLockRegistry registry = this.closer.add(TestLockRegistry.createOnQuorum(nodes.uris(),
				TestLockRegistry.settings(lease).withCommandTimeout(Duration.ofMillis(500))));
		FencedLock lock = registry.registry().obtain("report");
		assertThat(lock.tryLock()).isTrue();
		// Node 2 loses the key once it has it: the lock stays held on nodes 0 and 1, a
		// majority
		List<RedisCommands<String, String>> clients = clients(nodes);
		awaitOnEveryNode(clients, "lock:report", true);
		clients.get(2).del("lock:report");
		nodes.node(1).pause();
		await().atMost(lease).until(() -> !registry.renewalFailures().isEmpty() || !registry.lostEvents().isEmpty());
		nodes.node(1).resume();
		// Two more renewals, decided by nodes 0 and 1
		Thread.sleep(lease.multipliedBy(2).dividedBy(3).toMillis() + 200);
		assertThat(registry.lostEvents()).as("renewed by neither a majority nor refused by one").isEmpty();
		assertThat(registry.renewalFailures()).hasSize(1);
		assertThat(lock.currentHold().isValid()).isTrue();
		lock.unlock();
	}

	@Test
	void releaseThatOneOfTheHoldsTwoNodesMissesFailsWithoutReportingTheHoldLost() throws Exception {
		QuorumNodes nodes = nodes(3);
		TestLockRegistry registry = registry(nodes.uris());
		LockLease lease = registry.registry().acquire("report", Duration.ZERO);
		// Node 2 loses the key once it has it: the lock stays held on nodes 0 and 1, a
		// majority
		List<RedisCommands<String, String>> clients = clients(nodes);
		awaitOnEveryNode(clients, "lock:report", true);
		clients.get(2).del("lock:report");
		nodes.node(1).pause();
		assertThatExceptionOfType(DistributedLockException.class).isThrownBy(lease::release)
			.withMessageEndingWith("Only 2 of 3 Redis nodes answered to release lock 'report', too few to decide it"
					+ " without the 1 that did not (distlock.redlock.nodes)");
		nodes.node(1).resume();
		assertThat(registry.lostEvents()).isEmpty();
	}

	@Test
	void handOverThatOneOfTheHoldsTwoNodesMissesFailsWithoutReportingTheHoldLost() throws Exception {
		QuorumNodes nodes = nodes(3);
		TestLockRegistry registry = registry(nodes.uris());
		LocalWaiter handOver = lockedWithALocalWaiter(registry.registry().obtain("report"));
		// Node 2 loses the key once it has it: the lock stays held on nodes 0 and 1, a
		// majority
		List<RedisCommands<String, String>> clients = clients(nodes);
		awaitOnEveryNode(clients, "lock:report", true);
		clients.get(2).del("lock:report");
		nodes.node(1).pause();
		assertThat(handOver.unlockFailure()).isExactlyInstanceOf(DistributedLockException.class)
			.hasMessageEndingWith("Only 2 of 3 Redis nodes answered to hand lock 'report' over, too few to decide"
					+ " it without the 1 that did not (distlock.redlock.nodes)");
		nodes.node(1).resume();
		assertThat(handOver.waiting().get(10, TimeUnit.SECONDS)).as("acquired in Redis").isTrue();
		assertThat(registry.lostEvents()).isEmpty();
		handOver.waiter().run(handOver.lock()::unlock).get(5, TimeUnit.SECONDS);
	}

	@Test
	void handOverThatAMajorityOfTheNodesMissesFailsNamingTheHandOver() throws Exception {
		QuorumNodes nodes = nodes(3);
		LocalWaiter handOver = lockedWithALocalWaiter(registry(nodes.uris()).registry().obtain("report"));
		nodes.node(0).kill();
		nodes.node(1).kill();
		assertThat(handOver.unlockFailure()).isExactlyInstanceOf(DistributedLockException.class)
			.hasMessageContaining("Only 1 of 3 Redis nodes answered to hand lock 'report' over, fewer than the"
					+ " majority of 2 (distlock.redlock.nodes); the first failure: ");
		assertThat(handOver.waiting()).failsWithin(Duration.ofSeconds(5))
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(DistributedLockException.class);
	}

	@Test
	void acquisitionWhoseFencingWriteBackAMajorityMissesFailsWithinTheCommandTimeout() throws Exception {
		QuorumNodes nodes = nodes(3);
		List<TcpProxy> proxies = nodes.proxies();
		TestLockRegistry registry = registry(QuorumNodes.urisOf(proxies));
		// Opens every node's command connection
		registry.registry().acquire("report", Duration.ZERO).release();
		// Node 0 issues a token far ahead of node 1's: node 1 must raise its fencing key
		long ahead = (System.currentTimeMillis() + TimeUnit.HOURS.toMillis(1)) * 1000;
		try (RedisTestClient client = RedisTestClient.connect(nodes.node(0).uri(), COMMAND_TIMEOUT)) {
			client.sync().set(LockKeys.fenceKey("lock:ledger"), Long.toString(ahead));
		}
		RedisCommands<String, String> nodeOne = clients(nodes).get(1);
		nodes.node(2).pause();
		// Node 1 grants at once and answers late; its write-back never reaches it
		proxies.get(1).setReplyLatency(Duration.ofMillis(400));
		TestThread acquirer = this.closer.add(TestThread.start("acquirer"));
		long startNanos = System.nanoTime();
		CompletableFuture<Optional<LockLease>> acquiring = acquirer
			.call(() -> registry.registry().tryAcquire("ledger", Duration.ofSeconds(10)));
		await().atMost(Duration.ofSeconds(1))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> nodeOne.exists("lock:ledger") == 1);
		proxies.get(1).stallRequests();
		assertThat(acquiring).failsWithin(Duration.ofSeconds(5))
			.withThrowableThat()
			.havingCause()
			.isExactlyInstanceOf(DistributedLockException.class)
			.withMessageContaining("Only 1 of 3 Redis nodes answered to acquire lock 'ledger', fewer than the"
					+ " majority of 2 (distlock.redlock.nodes)");
		assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).as("within the command timeout, and a margin")
			.isLessThan(COMMAND_TIMEOUT.plusMillis(500));
		nodes.node(2).resume();
		proxies.forEach(TcpProxy::heal);
	}

	@Test
	void lockHeldOnTwoNodesOneOfThemPausedIsNeverToldFree() throws Exception {
		QuorumNodes nodes = nodes(3);
		TestLockRegistry registry = registry(nodes.uris());
		TestLockRegistry rival = registry(nodes.uris());
		LockLease lease = registry.registry().acquire("report", Duration.ZERO);
		// Every node granted it (the hold waited for two): node 2 then loses the key, and
		// the lock stays held on nodes 0 and 1, a majority, whose keys outlast the test
		// however late the renewals come
		List<RedisCommands<String, String>> clients = clients(nodes);
		awaitOnEveryNode(clients, "lock:report", true);
		clients.get(2).del("lock:report");
		for (int node = 0; node < 2; node++) {
			clients.get(node).pexpire("lock:report", Duration.ofSeconds(30).toMillis());
		}
		nodes.node(1).pause();
		assertThatExceptionOfType(DistributedLockException.class).isThrownBy(() -> rival.registry().isLocked("report"))
			.withMessageEndingWith("Only 2 of 3 Redis nodes answered to read the lease of lock 'report', too few to"
					+ " decide it without the 1 that did not (distlock.redlock.nodes)");
		nodes.node(1).resume();
		assertThat(rival.registry().isLocked("report")).isTrue();
		lease.release();
		assertThat(rival.registry().isLocked("report")).isFalse();
	}

	@ParameterizedTest(name = "{0} nodes")
	@ValueSource(ints = { 3, 5 })
	void holderCutOffPastItsValidityLosesIsToldAndItsFencedWriteIsRefused(int count) throws Exception {
		QuorumNodes nodes = nodes(count);
		List<TcpProxy> proxies = nodes.proxies();
		TestLockRegistry holder = registry(QuorumNodes.urisOf(proxies));
		TestLockRegistry rival = registry(nodes.uris());
		RedisFence fence = fenceOn(this.closer.add(RedisServer.start()));
		LockLease lease = holder.registry().acquire("ledger", Duration.ZERO);
		fence.advance("ledger", lease.fencingToken());
		proxies.forEach(TcpProxy::stall);
		LockLease next = await().atMost(LEASE.multipliedBy(4))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> rival.registry().tryAcquire("ledger", Duration.ZERO), Optional::isPresent)
			.orElseThrow();
		assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
		fence.advance("ledger", next.fencingToken());
		assertThat(lease.isValid()).as("its validity ended before the rival's grant").isFalse();
		proxies.forEach(TcpProxy::heal);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(
					() -> assertThat(holder.lostEvents()).extracting(LockLostEvent::name).containsExactly("ledger"));
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> fence.advance("ledger", lease.fencingToken()));
		assertThat(rival.registry().isLocked("ledger")).isTrue();
		next.release();
	}

	@Test
	void fencingTokensIncreaseAcrossHoldersAlthoughNoSingleNodeOrdersThem() throws Exception {
		QuorumNodes nodes = nodes(3);
		TestLockRegistry first = registry(nodes.uris());
		TestLockRegistry second = registry(nodes.uris());
		// A node that issued a token far ahead of the others, as one whose clock ran an
		// hour fast would
		long ahead = (System.currentTimeMillis() + TimeUnit.HOURS.toMillis(1)) * 1000;
		try (RedisTestClient client = RedisTestClient.connect(nodes.node(0).uri(), COMMAND_TIMEOUT)) {
			client.sync().set(LockKeys.fenceKey("lock:ledger"), Long.toString(ahead));
		}
		// Granted by nodes 0 and 1, while node 2 is paused
		nodes.node(2).pause();
		LockLease lease = first.registry().acquire("ledger", Duration.ZERO);
		assertThat(lease.fencingToken()).isGreaterThan(ahead);
		lease.release();
		nodes.node(2).resume();
		nodes.node(0).kill();
		// Node 2 runs the first holder's late grant and release as it resumes
		try (LockLease next = second.registry().acquire("ledger", Duration.ofSeconds(5))) {
			assertThat(next.fencingToken()).as("issued by the other two nodes").isGreaterThan(lease.fencingToken());
		}
	}

	@Test
	void uncontendedHoldsRunOnlyTheirAcquireAndReleaseOnEachNode() throws Exception {
		QuorumNodes nodes = nodes(3);
		TestLockRegistry registry = registry(nodes.uris());
		registry.registry().acquire("ledger", Duration.ZERO).release();
		List<RedisCommands<String, String>> clients = clients(nodes);
		awaitOnEveryNode(clients, "lock:ledger", false);
		List<CommandStats> stats = clients.stream().map(CommandStats::new).toList();
		// A node that runs an acquire script more than the token floor's lead after the
		// client proposed the token issues one of its own clock, which the client writes
		// back to the others: on a busy machine a round may be that late, so rounds are
		// run until one had every node on time.
		await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
			stats.forEach(CommandStats::reset);
			long previous = 0;
			for (int i = 0; i < 10; i++) {
				try (LockLease lease = registry.registry().acquire("ledger", Duration.ZERO)) {
					assertThat(lease.fencingToken()).isGreaterThan(previous);
					previous = lease.fencingToken();
				}
			}
			await().atMost(Duration.ofSeconds(5))
				.until(() -> stats.stream().allMatch((node) -> node.calls().getOrDefault("evalsha", 0L) >= 20));
			assertThat(stats).allSatisfy((node) -> assertThat(node.calls()).as("every node issued the same token")
				.containsEntry("evalsha", 20L));
		});
	}

	/**
	 * Two nodes whose fencing keys were raised above the client's proposal (by an earlier
	 * holder's write-back) issue the same token and decide the hold without a write-back;
	 * the third node grants later, below that token, and must be raised to it all the
	 * same: a later majority that renews the hold may include it. The command timeout is
	 * long, so that a busy machine does not delay the third node's grant past the
	 * attempt's wait for nodes.
	 */
	@Test
	void nodeThatGrantsBelowTheTokenAfterTheHoldWasDecidedIsRaisedToIt() throws Exception {
		QuorumNodes nodes = nodes(3);
		List<TcpProxy> proxies = nodes.proxies();
		TestLockRegistry registry = this.closer.add(TestLockRegistry.createOnQuorum(QuorumNodes.urisOf(proxies),
				SETTINGS.withCommandTimeout(Duration.ofSeconds(5))));
		registry.registry().acquire("ledger", Duration.ZERO).release();
		List<RedisCommands<String, String>> clients = clients(nodes);
		awaitOnEveryNode(clients, "lock:ledger", false);
		String fenceKey = LockKeys.fenceKey("lock:ledger");
		long raised = Long.parseLong(clients.get(0).get(fenceKey)) + 60_000_000;
		clients.get(0).set(fenceKey, Long.toString(raised));
		clients.get(1).set(fenceKey, Long.toString(raised));
		proxies.get(2).setReplyLatency(Duration.ofMillis(300));
		try (LockLease lease = registry.registry().acquire("ledger", Duration.ZERO)) {
			assertThat(lease.fencingToken()).isEqualTo(raised + 1);
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(clients.get(2).get(fenceKey)).isEqualTo(Long.toString(raised + 1)));
		}
	}

	@Test
	void acquisitionsOnNodesUpALeaseSinceTheirLastSaveReadNoServerInfo() throws Exception {
		QuorumNodes nodes = nodes(3);
		TestLockRegistry registry = registry(nodes.uris());
		registry.registry().acquire("ledger", Duration.ZERO).release();
		List<RedisCommands<String, String>> clients = clients(nodes);
		clients.forEach(RedisCommands::configResetstat);
		for (int i = 0; i < 10; i++) {
			registry.registry().acquire("ledger", Duration.ZERO).release();
		}
		assertThat(clients).allSatisfy((client) -> assertThat(client.info("commandstats")).contains("cmdstat_lastsave")
			.doesNotContain("cmdstat_info"));
	}

	@Test
	void nodesThatSavedWithinALeaseStillGrantOnceUpALease() throws Exception {
		QuorumNodes nodes = nodes(3);
		TestLockRegistry registry = registry(nodes.uris());
		for (int i = 0; i < 3; i++) {
			try (RedisTestClient client = RedisTestClient.connect(nodes.node(i).uri(), COMMAND_TIMEOUT)) {
				assertThat(client.sync().save()).isEqualTo("OK");
			}
		}
		try (LockLease lease = registry.registry().acquire("ledger", Duration.ZERO)) {
			assertThat(lease.fencingToken()).isPositive();
		}
	}

	@ParameterizedTest(name = "{0} nodes")
	@ValueSource(ints = { 3, 5 })
	void partitionSplittingTheNodesBetweenTwoClientsNeverGivesBothTheLock(int count) throws Exception {
		QuorumNodes nodes = nodes(count);
		List<TcpProxy> left = nodes.proxies();
		List<TcpProxy> right = nodes.proxies();
		TestLockRegistry leftClient = registry(QuorumNodes.urisOf(left));
		TestLockRegistry rightClient = registry(QuorumNodes.urisOf(right));
		// Each side reaches a majority; they share the middle node
		for (int i = count / 2 + 1; i < count; i++) {
			left.get(i).cutConnections();
		}
		for (int i = 0; i < count / 2; i++) {
			right.get(i).cutConnections();
		}
		List<long[]> holds = new CopyOnWriteArrayList<>();
		ExecutorService executor = Executors.newFixedThreadPool(2);
		this.closer.add(executor::shutdownNow);
		long endNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
		List<Future<?>> clients = new ArrayList<>();
		for (TestLockRegistry client : List.of(leftClient, rightClient)) {
			clients.add(executor.submit(() -> {
				while (System.nanoTime() < endNanos) {
					Optional<LockLease> lease = client.registry().tryAcquire("ledger", Duration.ofMillis(200));
					if (lease.isPresent()) {
						long acquiredNanos = System.nanoTime();
						Thread.sleep(10);
						holds.add(new long[] { acquiredNanos, System.nanoTime(), lease.get().fencingToken() });
						lease.get().release();
					}
				}
				return null;
			}));
		}
		for (Future<?> client : clients) {
			client.get(30, TimeUnit.SECONDS);
		}
		assertThat(holds).isNotEmpty();
		List<long[]> ordered = new ArrayList<>(holds);
		ordered.sort((a, b) -> Long.compare(a[0], b[0]));
		for (int i = 1; i < ordered.size(); i++) {
			assertThat(ordered.get(i)[0]).as("hold %d starts after hold %d ended", i, i - 1)
				.isGreaterThan(ordered.get(i - 1)[1]);
			assertThat(ordered.get(i)[2]).as("fencing token of hold %d", i).isGreaterThan(ordered.get(i - 1)[2]);
		}
	}

	@Test
	void threadsOfTwoProcessesTakeTurnsAndTheirTokensIncrease() throws Exception {
		QuorumNodes nodes = nodes(3);
		List<TestLockRegistry> registries = List.of(registry(nodes.uris()), registry(nodes.uris()));
		List<long[]> holds = new CopyOnWriteArrayList<>();
		ExecutorService executor = Executors.newFixedThreadPool(4);
		this.closer.add(executor::shutdownNow);
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < 4; t++) {
			TestLockRegistry registry = registries.get(t % 2);
			workers.add(executor.submit(() -> {
				FencedLock lock = registry.registry().obtain("counter");
				for (int i = 0; i < 15; i++) {
					assertThat(lock.tryLock(Duration.ofSeconds(20))).isTrue();
					long acquiredNanos = System.nanoTime();
					holds.add(new long[] { acquiredNanos, System.nanoTime(), lock.fencingToken() });
					lock.unlock();
				}
				return null;
			}));
		}
		for (Future<?> worker : workers) {
			worker.get(60, TimeUnit.SECONDS);
		}
		List<long[]> ordered = new ArrayList<>(holds);
		ordered.sort((a, b) -> Long.compare(a[0], b[0]));
		assertThat(ordered).hasSize(60);
		for (int i = 1; i < ordered.size(); i++) {
			assertThat(ordered.get(i)[2]).as("fencing token of hold %d", i).isGreaterThan(ordered.get(i - 1)[2]);
		}
	}

	@Test
	void leadershipPassesToTheStandbyWhenTheLeaderStops() {
		QuorumNodes nodes = nodes(3);
		Leadership leader = registry(nodes.uris()).registry().leadership("scheduler");
		Leadership standby = registry(nodes.uris()).registry().leadership("scheduler");
		leader.start();
		await().atMost(Duration.ofSeconds(5)).until(leader::isLeader);
		standby.start();
		assertThat(standby.isLeader()).isFalse();
		long term = leader.fencingToken().orElseThrow();
		leader.stop();
		await().atMost(Duration.ofSeconds(5)).until(standby::isLeader);
		assertThat(standby.fencingToken().orElseThrow()).isGreaterThan(term);
		standby.stop();
	}

	@Test
	void readWriteLocksAndSemaphoresAreNotOfferedOnAQuorum() throws Exception {
		QuorumNodes nodes = nodes(3);
		TestLockRegistry registry = registry(nodes.uris());
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> registry.registry().readWriteLock("catalog"))
			.withMessage("Redlock (distlock.redlock.nodes) does not offer read/write locks: only locks and leases are"
					+ " taken on a quorum of nodes; use them, or remove distlock.redlock.nodes to lock on one Redis");
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> registry.registry().semaphore("exports", 2))
			.withMessageStartingWith("Redlock (distlock.redlock.nodes) does not offer semaphores");
	}

	private QuorumNodes nodes(int count) {
		QuorumNodes nodes = this.closer.add(new QuorumNodes(count));
		nodes.awaitUp(RESTART_DELAY);
		return nodes;
	}

	/**
	 * Wait until every node has the given lock key, or freed it: a hold is decided and
	 * released without waiting for the slowest node, which may still be behind on a busy
	 * machine.
	 */
	private static void awaitOnEveryNode(List<RedisCommands<String, String>> clients, String key, boolean held) {
		long exists = held ? 1 : 0;
		await().atMost(Duration.ofSeconds(5))
			.until(() -> clients.stream().allMatch((client) -> client.exists(key) == exists));
	}

	/**
	 * Return a client of each node, straight to it, closed after the test.
	 */
	private List<RedisCommands<String, String>> clients(QuorumNodes nodes) {
		List<RedisCommands<String, String>> clients = new ArrayList<>();
		for (String uri : nodes.uris()) {
			clients.add(this.closer.add(RedisTestClient.connect(uri, COMMAND_TIMEOUT)).sync());
		}
		return clients;
	}

	private TestLockRegistry registry(List<String> uris) {
		return this.closer.add(TestLockRegistry.createOnQuorum(uris, SETTINGS));
	}

	/**
	 * Lock the given lock on a holder thread, then have a thread of the same registry
	 * wait for it, so that the holder's unlock hands the lock over to it.
	 */
	private LocalWaiter lockedWithALocalWaiter(FencedLock lock) throws Exception {
		TestThread holder = this.closer.add(TestThread.start("holder"));
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		holder.run(lock::lock).get(5, TimeUnit.SECONDS);
		CompletableFuture<Boolean> waiting = waiter.call(() -> lock.tryLock(Duration.ofSeconds(20)));
		waiter.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, Duration.ofSeconds(5));
		return new LocalWaiter(lock, holder, waiter, waiting);
	}

	/**
	 * Return the quorum commands of a registry on the given nodes, one Lettuce client
	 * each, as {@link TestLockRegistry#createOnQuorum} has them.
	 */
	private RedlockCommands commandsOn(List<String> uris) {
		List<LockConnection> connections = new ArrayList<>();
		for (String uri : uris) {
			RedisURI redisUri = RedisURI.create(uri);
			redisUri.setTimeout(COMMAND_TIMEOUT);
			RedisClient client = RedisClient.create(redisUri);
			this.closer.add(() -> LettuceClients.shutdown(client));
			connections.add(LockConnections.lettuce(client));
		}
		return this.closer.add(new RedlockCommands(connections,
				new RedlockSettings(RedlockSettings.DEFAULT_DRIFT_FACTOR), SETTINGS, LockObserver.NONE));
	}

	private RedisFence fenceOn(RedisServer server) {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		this.closer.add(connectionFactory::destroy);
		return new RedisFence(new StringRedisTemplate(connectionFactory), "lock:");
	}

	/**
	 * A thread holding a lock and a thread of the same registry waiting for it.
	 *
	 * @param lock the lock
	 * @param holder the holding thread
	 * @param waiter the waiting thread
	 * @param waiting the waiter's {@code tryLock}
	 */
	private record LocalWaiter(FencedLock lock, TestThread holder, TestThread waiter,
			CompletableFuture<Boolean> waiting) {

		/**
		 * Unlock on the holder's thread, handing the lock over, and return why that
		 * failed.
		 */
		Throwable unlockFailure() throws InterruptedException, TimeoutException {
			try {
				this.holder.run(this.lock::unlock).get(5, TimeUnit.SECONDS);
			}
			catch (ExecutionException ex) {
				return ex.getCause();
			}
			throw new AssertionError("handed over");
		}

	}

}
