package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import dev.distlock.HeldLock;
import dev.distlock.Leadership;
import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockEvent;
import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * {@link Leadership}s of {@link RedisLockRegistry}s on a real {@code redis-server}, each
 * registry one application instance: who is leader, the events of each term, the
 * hand-over when the leader yields or stops, and the revocation when the leader's lock is
 * lost, when Redis stalls past the lease and when it restarts empty.
 */
@Timeout(60)
class LeadershipTests {

	/** A lease long enough that a hand-over well within it cannot be an expiry. */
	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration SHORT_LEASE = Duration.ofSeconds(1);

	/** A lease the watchdog renews every second. */
	private static final Duration RENEWED_LEASE = Duration.ofSeconds(3);

	/** A bound well under {@link #LEASE} for what must happen at once. */
	private static final Duration AT_ONCE = Duration.ofSeconds(5);

	/**
	 * Slack for scheduling on a busy machine, added to every bound that follows a lease.
	 */
	private static final Duration MARGIN = Duration.ofSeconds(2);

	/** How long Lettuce may take to reconnect once Redis answers (its backoff grows). */
	private static final Duration RECONNECT = Duration.ofSeconds(20);

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
	void startedLeadershipIsLeaderForATermWithItsLocksFencingToken() {
		TestLockRegistry instance = instance(LEASE);
		Leadership leadership = instance.registry().leadership("report");
		assertThat(leadership.isLeader()).isFalse();
		assertThat(instance.registry().leaderships()).isEmpty();
		leadership.start();
		await().atMost(AT_ONCE).until(leadership::isLeader);
		long token = leadership.fencingToken().orElseThrow();
		await().atMost(AT_ONCE)
			.untilAsserted(() -> assertThat(instance.leadershipEvents())
				.usingRecursiveFieldByFieldElementComparatorIgnoringFields(TestLockRegistry.TERM)
				.containsExactly(TestLockRegistry.grant("report", token)));
		assertThat(instance.registry().heldLocks()).extracting(HeldLock::key, HeldLock::fencingToken)
			.containsExactly(tuple("lock:report", token));
		assertThat(instance.registry().leaderships()).containsExactly(leadership);
		assertThat(instance.registry().leadership("report")).isSameAs(leadership);
	}

	@Test
	void startReturnsOnceTheFirstElectionIsDecided() {
		Leadership leader = instance(LEASE).registry().leadership("report");
		leader.start();
		assertThat(leader.isLeader()).as("a sole instance leads when start returns").isTrue();
		Leadership standby = instance(LEASE).registry().leadership("report");
		standby.start();
		assertThat(standby.isLeader()).isFalse();
		await().atMost(AT_ONCE).until(() -> TestLockRegistry.waitersOf(this.commands, "lock:report") == 1);
		leader.stop();
		await().atMost(AT_ONCE).until(standby::isLeader);
	}

	@Test
	void awaitDecisionIsTrueOnASoleInstanceAndFalseAtOnceOnAStandby() throws InterruptedException {
		Leadership leader = instance(LEASE).registry().leadership("report");
		assertThat(leader.awaitDecision(LEASE)).as("not started").isFalse();
		leader.start();
		assertThat(leader.awaitDecision(AT_ONCE)).isTrue();
		Leadership standby = instance(LEASE).registry().leadership("report");
		standby.start();
		long start = System.nanoTime();
		assertThat(standby.awaitDecision(LEASE)).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(AT_ONCE);
	}

	@Test
	void awaitDecisionWaitsUntilRedisAnswersAFirstElectionThatRedisFailed() throws InterruptedException {
		Leadership leader = startedLeader(instance(LEASE));
		TestLockRegistry second = instance(TestDriver.LETTUCE,
				RedisLockSettings.of("lock:", LEASE).withCommandTimeout(Duration.ofMillis(500)));
		assertThat(second.registry().isLocked("report")).isTrue();
		Leadership standby = second.registry().leadership("report");
		redis.server().pause();
		try {
			standby.start();
			assertThat(standby.awaitDecision(Duration.ofMillis(200))).as("undecided while Redis fails").isFalse();
		}
		finally {
			redis.server().resume();
		}
		long start = System.nanoTime();
		assertThat(standby.awaitDecision(RECONNECT)).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("decided, not timed out").isLessThan(AT_ONCE);
		await().atMost(AT_ONCE).until(() -> TestLockRegistry.waitersOf(this.commands, "lock:report") == 1);
		leader.stop();
		await().atMost(AT_ONCE).until(standby::isLeader);
	}

	@Test
	void grantedListenerGetsTheTermAsAValidLeaseWithItsFencingToken() {
		CompletableFuture<LockLease> validAtGrant = new CompletableFuture<>();
		TestLockRegistry instance = instance(LEASE, (event) -> {
			if (event instanceof LeadershipGrantedEvent granted) {
				granted.term().assertValid();
				validAtGrant.complete(granted.term());
			}
		});
		Leadership leadership = startedLeader(instance);
		assertThat(validAtGrant).succeedsWithin(AT_ONCE).satisfies((term) -> {
			assertThat(term.name()).isEqualTo("report");
			assertThat(term.fencingToken()).isEqualTo(leadership.fencingToken().orElseThrow());
			assertThat(term.isValid()).isTrue();
		});
	}

	@Test
	void termTurnsInvalidAndRunsItsLossActionsBeforeItsRevocationWhenTheLeaderYields() {
		List<String> told = new CopyOnWriteArrayList<>();
		AtomicReference<LockLease> term = new AtomicReference<>();
		Leadership leader = startedLeader(instance(LEASE, recordingTerms("first", told, term)));
		long token = leader.fencingToken().orElseThrow();
		await().atMost(AT_ONCE).until(() -> term.get() != null);
		LockLease yielded = term.get();
		leader.yieldLeadership();
		assertThat(yielded.isValid()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(yielded::assertValid);
		assertThat(told).startsWith("first granted " + token,
				"first loss " + token + ": Leadership 'report' (fencing token " + token + ") was revoked: it yielded",
				"first revoked " + token);
	}

	@Test
	void termWhoseLockIsLostTurnsInvalidAndRunsItsLossActionsBeforeItsRevocation() {
		List<String> told = new CopyOnWriteArrayList<>();
		AtomicReference<LockLease> term = new AtomicReference<>();
		TestLockRegistry instance = instance(LEASE, recordingTerms("first", told, term));
		long token = startedLeader(instance).fencingToken().orElseThrow();
		await().atMost(AT_ONCE).until(() -> term.get() != null);
		this.commands.set("lock:report", "someone-else");
		instance.registry().renewLeases();
		await().atMost(AT_ONCE).until(() -> told.size() == 3);
		assertThat(term.get().isValid()).isFalse();
		assertThat(told.get(1)).startsWith("first loss " + token + ": Leadership 'report' (fencing token " + token
				+ ") was revoked: Lock 'report' was lost while held");
		assertThat(told.get(2)).isEqualTo("first revoked " + token);
	}

	@Test
	void lossActionsAndRevocationOfTheLeadersTermComeBeforeTheStandbysGrant() {
		List<String> told = new CopyOnWriteArrayList<>();
		AtomicReference<LockLease> firstTerm = new AtomicReference<>();
		AtomicReference<LockLease> secondTerm = new AtomicReference<>();
		Leadership leader = startedLeader(instance(LEASE, recordingTerms("first", told, firstTerm)));
		long token = leader.fencingToken().orElseThrow();
		Leadership standby = startedStandby(instance(LEASE, recordingTerms("second", told, secondTerm)));
		leader.stop();
		await().atMost(AT_ONCE).until(() -> secondTerm.get() != null);
		assertThat(told).containsExactly("first granted " + token,
				"first loss " + token + ": Leadership 'report' (fencing token " + token + ") was revoked: it stopped",
				"first revoked " + token, "second granted " + standby.fencingToken().orElseThrow());
	}

	@Test
	void releasingTheTermHandsItToTheStandbyWithoutRunningItsLossActions() {
		List<String> told = new CopyOnWriteArrayList<>();
		AtomicReference<LockLease> term = new AtomicReference<>();
		TestLockRegistry first = instance(LEASE, recordingTerms("first", told, term));
		long token = startedLeader(first).fencingToken().orElseThrow();
		Leadership standby = startedStandby(instance(LEASE));
		await().atMost(AT_ONCE).until(() -> term.get() != null);
		term.get().release();
		assertThat(term.get().isValid()).isFalse();
		await().atMost(AT_ONCE).until(standby::isLeader);
		assertThat(told).containsExactly("first granted " + token, "first revoked " + token);
		assertThat(first.leadershipEvents()).last()
			.isEqualTo(new LeadershipRevokedEvent("report", "lock:report", token, "it yielded"));
		term.get().release();
	}

	@Test
	void lossActionThatStopsTheTermsLeadershipReturnsAndTheLeadershipStops() {
		AtomicReference<Leadership> leadership = new AtomicReference<>();
		CompletableFuture<Void> stopped = new CompletableFuture<>();
		TestLockRegistry instance = instance(LEASE, (event) -> {
			if (event instanceof LeadershipGrantedEvent granted) {
				granted.term().onLoss((ended) -> {
					leadership.get().stop();
					stopped.complete(null);
				});
			}
		});
		leadership.set(startedLeader(instance));
		assertThat(CompletableFuture.runAsync(leadership.get()::yieldLeadership)).succeedsWithin(AT_ONCE);
		assertThat(stopped).isDone();
		assertThat(leadership.get().isLeader()).isFalse();
		await().atMost(AT_ONCE).until(() -> instance.registry().leaderships().isEmpty());
	}

	@Test
	void leadershipNameFollowsTheRulesOfLockNames() {
		assertThatIllegalArgumentException().isThrownBy(() -> instance(LEASE).registry().leadership("report!"))
			.withMessageContaining("reserved");
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(TestDriver.class)
	void standbyTakesOverAtOnceWhenTheLeaderYieldsAndTheLeaderCampaignsAgainBehindIt(TestDriver driver) {
		TestLockRegistry first = instance(driver, LEASE);
		TestLockRegistry second = instance(driver, LEASE);
		Leadership leader = startedLeader(first);
		long firstTerm = leader.fencingToken().orElseThrow();
		Leadership standby = startedStandby(second);
		leader.yieldLeadership();
		assertThat(leader.isLeader()).isFalse();
		await().atMost(AT_ONCE).until(standby::isLeader);
		long secondTerm = standby.fencingToken().orElseThrow();
		assertThat(secondTerm).isGreaterThan(firstTerm);
		await().atMost(AT_ONCE)
			.untilAsserted(() -> assertThat(first.leadershipEvents())
				.usingRecursiveFieldByFieldElementComparatorIgnoringFields(TestLockRegistry.TERM)
				.containsExactly(TestLockRegistry.grant("report", firstTerm),
						new LeadershipRevokedEvent("report", "lock:report", firstTerm, "it yielded")));
		await().atMost(AT_ONCE).until(() -> TestLockRegistry.waitersOf(this.commands, "lock:report") == 1);
		standby.yieldLeadership();
		await().atMost(AT_ONCE).until(leader::isLeader);
		assertThat(leader.fencingToken().orElseThrow()).isGreaterThan(secondTerm);
	}

	@ParameterizedTest(name = "{0}")
	@EnumSource(TestDriver.class)
	void standbyTakesOverAtOnceWhenTheLeaderStops(TestDriver driver) {
		TestLockRegistry first = instance(driver, LEASE);
		Leadership leader = startedLeader(first);
		long firstTerm = leader.fencingToken().orElseThrow();
		Leadership standby = startedStandby(instance(driver, LEASE));
		leader.stop();
		await().atMost(AT_ONCE)
			.untilAsserted(() -> assertThat(first.leadershipEvents()).last()
				.isEqualTo(new LeadershipRevokedEvent("report", "lock:report", firstTerm, "it stopped")));
		await().atMost(AT_ONCE).until(standby::isLeader);
		assertThat(standby.fencingToken().orElseThrow()).isGreaterThan(firstTerm);
		assertThat(first.registry().leaderships()).isEmpty();
		assertThat(TestLockRegistry.waitersOf(this.commands, "lock:report")).as("the stopped one campaigns no more")
			.isZero();
	}

	@Test
	void stoppedStandbyLeavesTheQueueAndCampaignsAgainWhenStartedAgain() {
		Leadership leader = startedLeader(instance(LEASE));
		Leadership standby = startedStandby(instance(LEASE));
		standby.stop();
		await().atMost(AT_ONCE).until(() -> TestLockRegistry.waitersOf(this.commands, "lock:report") == 0);
		standby.start();
		await().atMost(AT_ONCE).until(() -> TestLockRegistry.waitersOf(this.commands, "lock:report") == 1);
		leader.stop();
		await().atMost(AT_ONCE).until(standby::isLeader);
	}

	@Test
	void leaderThatYieldsWithNoStandbyIsElectedAgainForANewTerm() {
		TestLockRegistry instance = instance(LEASE);
		Leadership leader = startedLeader(instance);
		long firstTerm = leader.fencingToken().orElseThrow();
		leader.yieldLeadership();
		await().atMost(AT_ONCE).until(leader::isLeader);
		long secondTerm = leader.fencingToken().orElseThrow();
		assertThat(secondTerm).isGreaterThan(firstTerm);
		await().atMost(AT_ONCE)
			.untilAsserted(() -> assertThat(instance.leadershipEvents())
				.usingRecursiveFieldByFieldElementComparatorIgnoringFields(TestLockRegistry.TERM)
				.containsExactly(TestLockRegistry.grant("report", firstTerm),
						new LeadershipRevokedEvent("report", "lock:report", firstTerm, "it yielded"),
						TestLockRegistry.grant("report", secondTerm)));
	}

	@Test
	void leaderWhoseLockIsLostIsRevokedAfterTheLossIsReportedAndIsElectedAgain() {
		TestLockRegistry instance = instance(SHORT_LEASE);
		Leadership leader = startedLeader(instance);
		long lostTerm = leader.fencingToken().orElseThrow();
		this.commands.del("lock:report");
		await().atMost(SHORT_LEASE.plus(MARGIN)).until(() -> instance.leadershipEvents().size() == 3);
		List<LockEvent> events = instance.leadershipEvents();
		assertThat(events.get(1)).isInstanceOfSatisfying(LeadershipRevokedEvent.class, (revoked) -> {
			assertThat(revoked.fencingToken()).isEqualTo(lostTerm);
			assertThat(revoked.reason()).isEqualTo("Lock 'report' was lost while held (fencing token " + lostTerm
					+ "): its renewal found it expired or held by another owner");
		});
		assertThat(instance.lostEvents()).extracting(LockLostEvent::fencingToken).containsExactly(lostTerm);
		assertThat(events.get(2)).isInstanceOfSatisfying(LeadershipGrantedEvent.class,
				(granted) -> assertThat(granted.fencingToken()).isGreaterThan(lostTerm));
		assertThat(leader.isLeader()).isTrue();
	}

	@Test
	void leaderIsRevokedWhenItsLeaseRunsOutWhileRedisStallsAndOneCandidateIsElectedOnceRedisGoesOn() {
		RedisLockSettings settings = RedisLockSettings.of("lock:", SHORT_LEASE)
			.withCommandTimeout(SHORT_LEASE.multipliedBy(10));
		TestLockRegistry first = instance(TestDriver.LETTUCE, settings);
		TestLockRegistry second = instance(TestDriver.LETTUCE, settings);
		Leadership leader = startedLeader(first);
		long stalledTerm = leader.fencingToken().orElseThrow();
		Leadership standby = startedStandby(second);
		redis.server().pause();
		try {
			await().atMost(SHORT_LEASE.plus(MARGIN)).until(() -> first.leadershipEvents().size() == 2);
			assertThat(leader.isLeader()).isFalse();
			assertThat(first.leadershipEvents().get(1)).isEqualTo(new LeadershipRevokedEvent("report", "lock:report",
					stalledTerm, "its lease of 1000 ms ran out with no renewal confirmed"));
			assertThat(standby.isLeader()).isFalse();
		}
		finally {
			redis.server().resume();
		}
		assertOneIsElectedAfter(stalledTerm, leader, standby);
	}

	@Test
	void leaderIsRevokedWhenRedisRestartsEmptyAndOneCandidateIsElectedAgain() {
		TestLockRegistry first = instance(SHORT_LEASE);
		Leadership leader = startedLeader(first);
		long firstTerm = leader.fencingToken().orElseThrow();
		Leadership standby = startedStandby(instance(SHORT_LEASE));
		redis.server().restart();
		await().atMost(RECONNECT).until(() -> first.leadershipEvents().size() >= 2);
		assertThat(first.leadershipEvents().get(1)).isInstanceOfSatisfying(LeadershipRevokedEvent.class,
				(revoked) -> assertThat(revoked.fencingToken()).isEqualTo(firstTerm));
		assertOneIsElectedAfter(firstTerm, leader, standby);
	}

	@Test
	void closingTheRegistryHandsItsLeadershipToTheStandbyAtOnce() {
		TestLockRegistry first = instance(LEASE);
		Leadership leader = startedLeader(first);
		Leadership standby = startedStandby(instance(LEASE));
		first.registry().close();
		assertThat(leader.isLeader()).isFalse();
		await().atMost(AT_ONCE).until(standby::isLeader);
	}

	@Test
	void lockLostListenerThatStopsTheLostTermsLeadershipReturnsAndTheRegistrysOtherLocksKeepBeingRenewed() {
		AtomicReference<Leadership> leadership = new AtomicReference<>();
		CompletableFuture<Void> stopped = new CompletableFuture<>();
		TestLockRegistry instance = instance(RENEWED_LEASE, (event) -> {
			if (event instanceof LockLostEvent lost && lost.name().equals("report")) {
				leadership.get().stop();
				stopped.complete(null);
			}
		});
		leadership.set(startedLeader(instance));
		LockLease order = instance.registry().acquire("order", Duration.ZERO);
		this.commands.set("lock:report", "someone-else");
		assertThat(stopped).succeedsWithin(RENEWED_LEASE.plus(MARGIN));
		assertThat(leadership.get().isLeader()).isFalse();
		await().during(RENEWED_LEASE.multipliedBy(2))
			.atMost(RENEWED_LEASE.multipliedBy(2).plus(MARGIN))
			.until(order::isValid);
		assertThat(CompletableFuture.runAsync(instance.registry()::close)).succeedsWithin(AT_ONCE);
	}

	@Test
	void lockLostListenerAskingTheLostTermsLeadershipIsAnsweredAtOnce() {
		AtomicReference<Leadership> leadership = new AtomicReference<>();
		CompletableFuture<Duration> answeredAfter = new CompletableFuture<>();
		TestLockRegistry instance = instance(LEASE, (event) -> {
			if (event instanceof LockLostEvent lost && lost.name().equals("report")) {
				long start = System.nanoTime();
				assertThat(leadership.get().isLeader()).isFalse();
				assertThat(leadership.get().fencingToken()).isEmpty();
				answeredAfter.complete(Duration.ofNanos(System.nanoTime() - start));
			}
		});
		leadership.set(startedLeader(instance));
		this.commands.set("lock:report", "someone-else");
		instance.registry().renewLeases();
		assertThat(answeredAfter).succeedsWithin(LEASE.plus(MARGIN))
			.satisfies((after) -> assertThat(after).isLessThan(AT_ONCE));
	}

	@Test
	void observerAskingTheLeadershipWhoseTermEndsIsAnsweredAtOnceOnTheLeadershipsThread() {
		AtomicReference<Leadership> leadership = new AtomicReference<>();
		CompletableFuture<Boolean> answer = new CompletableFuture<>();
		TestLockRegistry instance = this.closer.add(TestLockRegistry.create(redis.server().uri(),
				RedisLockSettings.of("lock:", LEASE).withCommandTimeout(AT_ONCE), new LockObserver() {

					@Override
					public void leadershipRevoked(LockName name, LeadershipRevokedEvent event) {
						answer.complete(leadership.get().isLeader());
					}

				}));
		leadership.set(startedLeader(instance));
		assertThat(CompletableFuture.runAsync(leadership.get()::yieldLeadership)).succeedsWithin(AT_ONCE);
		assertThat(answer).succeedsWithin(AT_ONCE).isEqualTo(false);
		await().atMost(AT_ONCE).until(leadership.get()::isLeader);
	}

	@Test
	void stopReturnsWithinALeaseWhileAListenerKeepsTheRevocationWaiting() {
		CountDownLatch listenerBlocked = new CountDownLatch(1);
		TestLockRegistry instance = instance(SHORT_LEASE, (event) -> {
			if (event instanceof LeadershipRevokedEvent) {
				awaitUninterruptibly(listenerBlocked);
			}
		});
		try {
			Leadership leadership = startedLeader(instance);
			assertThat(CompletableFuture.runAsync(leadership::stop)).succeedsWithin(SHORT_LEASE.plus(AT_ONCE));
			assertThat(instance(LEASE).registry().tryAcquire("report", AT_ONCE)).as("released").isPresent();
		}
		finally {
			listenerBlocked.countDown();
		}
	}

	private static void awaitUninterruptibly(CountDownLatch latch) {
		boolean interrupted = false;
		while (true) {
			try {
				latch.await();
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	@Test
	void grantedListenerThatStopsTheLeadershipReturnsAndTheTermIsRevokedAndItsLockReleased() {
		AtomicReference<Leadership> leadership = new AtomicReference<>();
		CompletableFuture<Void> stopped = new CompletableFuture<>();
		TestLockRegistry instance = instance(LEASE, (event) -> {
			if (event instanceof LeadershipGrantedEvent) {
				leadership.get().stop();
				stopped.complete(null);
			}
		});
		leadership.set(instance.registry().leadership("report"));
		leadership.get().start();
		assertThat(stopped).succeedsWithin(AT_ONCE);
		await().atMost(AT_ONCE).until(() -> instance.leadershipEvents().size() == 2);
		assertThat(instance.leadershipEvents().get(1)).isInstanceOfSatisfying(LeadershipRevokedEvent.class,
				(revoked) -> assertThat(revoked.reason()).isEqualTo("it stopped"));
		assertThat(leadership.get().isLeader()).isFalse();
		await().atMost(AT_ONCE).until(() -> instance.registry().leaderships().isEmpty());
		assertThat(instance(LEASE).registry().tryAcquire("report", AT_ONCE)).as("released").isPresent();
	}

	@Test
	void lossYieldAndStopOnThreeThreadsEndTheTermOnceAndTheLeadershipStops() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(3);
		try {
			for (int round = 0; round < 5; round++) {
				TestLockRegistry instance = instance(LEASE);
				Leadership leader = startedLeader(instance);
				long token = leader.fencingToken().orElseThrow();
				CyclicBarrier together = new CyclicBarrier(3);
				List<Runnable> calls = List.of(() -> {
					this.commands.set("lock:report", "someone-else");
					instance.registry().renewLeases();
				}, leader::yieldLeadership, leader::stop);
				List<Future<Object>> called = calls.stream().map((call) -> threads.<Object>submit(() -> {
					together.await();
					call.run();
					return null;
				})).toList();
				for (Future<Object> call : called) {
					call.get(AT_ONCE.toMillis(), TimeUnit.MILLISECONDS);
				}
				assertThat(leader.isLeader()).isFalse();
				await().atMost(AT_ONCE).until(() -> instance.registry().leaderships().isEmpty());
				// A yield that ends the term before the rival writes its key and the stop
				// lets the candidate win the free lock again: that term ends too
				await().atMost(AT_ONCE).untilAsserted(() -> {
					List<Long> granted = tokensOf(instance.leadershipEvents(), LeadershipGrantedEvent.class);
					assertThat(granted).first().isEqualTo(token);
					assertThat(tokensOf(instance.leadershipEvents(), LeadershipRevokedEvent.class))
						.as("each term revoked once")
						.containsExactlyElementsOf(granted);
				});
				assertThat(TestLockRegistry.waitersOf(this.commands, "lock:report")).as("campaigns no more").isZero();
				this.commands.del("lock:report");
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void leaderIsRevokedWhileRedisIsDownAndElectedAgainOnceRedisIsBack() {
		TestLockRegistry instance = instance(TestDriver.LETTUCE,
				RedisLockSettings.of("lock:", SHORT_LEASE).withCommandTimeout(Duration.ofMillis(500)));
		Leadership leader = startedLeader(instance);
		long downTerm = leader.fencingToken().orElseThrow();
		redis.server().kill();
		try {
			await().atMost(SHORT_LEASE.plus(MARGIN)).until(() -> instance.leadershipEvents().size() == 2);
			assertThat(leader.isLeader()).isFalse();
			assertThat(instance.leadershipEvents().get(1)).isInstanceOfSatisfying(LeadershipRevokedEvent.class,
					(revoked) -> assertThat(revoked.fencingToken()).isEqualTo(downTerm));
		}
		finally {
			redis.server().restart();
		}
		await().atMost(RECONNECT).until(leader::isLeader);
		assertThat(leader.fencingToken().orElseThrow()).isGreaterThan(downTerm);
	}

	@Test
	void notStartedLeadershipHasNoFencingToken() {
		Leadership leadership = instance(LEASE).registry().leadership("report");
		assertThat(leadership.fencingToken()).isEqualTo(OptionalLong.empty());
		leadership.yieldLeadership();
		leadership.stop();
		assertThat(leadership.isLeader()).isFalse();
	}

	private static List<Long> tokensOf(List<LockEvent> events, Class<? extends LockEvent> type) {
		return events.stream().filter(type::isInstance).map(LockEvent::fencingToken).toList();
	}

	/**
	 * Return a listener that records, for the given instance, each grant, the loss
	 * actions of its term (registered when it is granted) and each revocation, and keeps
	 * the last term granted.
	 */
	private static Consumer<LockEvent> recordingTerms(String instance, List<String> told,
			AtomicReference<LockLease> lastTerm) {
		return (event) -> {
			if (event instanceof LeadershipGrantedEvent granted) {
				told.add(instance + " granted " + granted.fencingToken());
				granted.term()
					.onLoss((ended) -> told
						.add(instance + " loss " + ended.getFencingToken() + ": " + ended.getMessage()));
				lastTerm.set(granted.term());
			}
			else if (event instanceof LeadershipRevokedEvent revoked) {
				told.add(instance + " revoked " + revoked.fencingToken());
			}
		};
	}

	/**
	 * Start the {@code report} leadership of an instance that no other contends with, and
	 * wait until it leads.
	 */
	private Leadership startedLeader(TestLockRegistry instance) {
		Leadership leadership = instance.registry().leadership("report");
		leadership.start();
		await().atMost(AT_ONCE).until(leadership::isLeader);
		return leadership;
	}

	/**
	 * Start the {@code report} leadership of an instance while another leads, and wait
	 * until it waits in the lock's queue.
	 */
	private Leadership startedStandby(TestLockRegistry instance) {
		Leadership leadership = instance.registry().leadership("report");
		leadership.start();
		await().atMost(AT_ONCE).until(() -> TestLockRegistry.waitersOf(this.commands, "lock:report") == 1);
		assertThat(leadership.isLeader()).isFalse();
		return leadership;
	}

	/**
	 * Wait until one of two candidates leads, for a term later than the given one.
	 */
	private static void assertOneIsElectedAfter(long earlierTerm, Leadership first, Leadership second) {
		await().atMost(RECONNECT).until(() -> first.isLeader() || second.isLeader());
		Leadership elected = first.isLeader() ? first : second;
		assertThat(elected.fencingToken().orElseThrow()).isGreaterThan(earlierTerm);
	}

	private TestLockRegistry instance(Duration leaseTime) {
		return instance(TestDriver.LETTUCE, leaseTime);
	}

	private TestLockRegistry instance(TestDriver driver, Duration leaseTime) {
		return this.closer.add(TestLockRegistry.create(driver, redis.server().uri(), leaseTime));
	}

	private TestLockRegistry instance(Duration leaseTime, Consumer<LockEvent> listener) {
		return this.closer.add(TestLockRegistry.create(TestDriver.LETTUCE, redis.server().uri(),
				RedisLockSettings.of("lock:", leaseTime).withCommandTimeout(AT_ONCE), listener));
	}

	private TestLockRegistry instance(TestDriver driver, RedisLockSettings settings) {
		return this.closer.add(TestLockRegistry.create(driver, redis.server().uri(), settings));
	}

}
