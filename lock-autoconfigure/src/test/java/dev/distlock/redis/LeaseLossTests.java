package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockEvent;
import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.LockObserver;
import dev.distlock.LockRenewalFailedEvent;
import dev.distlock.redis.connection.LockConnections;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import dev.distlock.testsupport.LettuceClients;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.awaitility.Awaitility.await;

/**
 * How a {@link RedisLockRegistry} tells a lease's holder that the lease is lost or in
 * danger: the lease's loss actions ({@link LockLease#onLoss}),
 * {@link LockLease#assertValid()}, and the {@link LockRenewalFailedEvent} of a renewal
 * that failed with time left; and how a thread that owns a hold known lost is kept from
 * re-entering it or believing it held. Losses are made by taking the key over in Redis
 * (or flushing it) and running the watchdog at once, or by a fixed lease running out;
 * failed renewals by pausing Redis.
 */
@Timeout(60)
class LeaseLossTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(5);

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
		redis.server().resume();
		this.closer.close();
	}

	@Test
	void lossActionRunsOnceWhenTheWatchdogFindsTheLockTakenAndTheReleaseThenThrows() {
		TestLockRegistry holder = testRegistry(Duration.ofSeconds(30));
		LockLease lease = holder.registry().acquire("order", Duration.ZERO);
		List<LockLostException> losses = new CopyOnWriteArrayList<>();
		lease.onLoss(losses::add);
		this.commands.set("lock:order", "someone-else");
		holder.registry().renewLeases();
		holder.registry().renewLeases();
		assertThat(losses).singleElement()
			.satisfies((lost) -> assertThat(lost).hasMessageContaining("Lock 'order' was lost while held")
				.hasMessageContaining("expired or held by another owner"));
		await().atMost(WAIT).untilAsserted(() -> assertThat(holder.lostEvents()).hasSize(1));
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		assertThat(losses).hasSize(1);
		assertThat(this.commands.get("lock:order")).isEqualTo("someone-else");
	}

	@Test
	void lossActionRegisteredAfterTheLossRunsAtOnceOnTheRegisteringThread() {
		TestLockRegistry holder = testRegistry(Duration.ofSeconds(30));
		LockLease lease = holder.registry().acquire("order", Duration.ZERO);
		this.commands.set("lock:order", "someone-else");
		holder.registry().renewLeases();
		List<Thread> ranOn = new ArrayList<>();
		lease.onLoss((lost) -> ranOn.add(Thread.currentThread()));
		assertThat(ranOn).containsExactly(Thread.currentThread());
	}

	@Test
	void lossActionNeverRunsForALeaseReleasedBeforeItWasLost() {
		TestLockRegistry holder = testRegistry(Duration.ofSeconds(30));
		LockLease lease = holder.registry().acquire("order", Duration.ZERO);
		AtomicInteger runs = new AtomicInteger();
		lease.onLoss((lost) -> runs.incrementAndGet());
		lease.release();
		lease.onLoss((lost) -> runs.incrementAndGet());
		this.commands.set("lock:order", "someone-else");
		holder.registry().renewLeases();
		assertThat(runs).hasValue(0);
		assertThat(holder.lostEvents()).isEmpty();
	}

	@Test
	void lossActionOfAFixedLeaseRunsWhenTheLeaseRunsOut() {
		TestLockRegistry holder = testRegistry(Duration.ofSeconds(30));
		LockLease lease = holder.registry()
			.tryAcquire("report", Duration.ZERO, LeaseOptions.fixed(Duration.ofMillis(200)))
			.orElseThrow();
		CompletableFuture<LockLostException> loss = new CompletableFuture<>();
		lease.onLoss(loss::complete);
		assertThat(loss).succeedsWithin(WAIT)
			.satisfies((lost) -> assertThat(lost).hasMessageContaining("fixed lease of 200 ms ran out"));
		assertThat(lease.isValid()).isFalse();
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(holder.lostEvents()).singleElement()
				.satisfies((event) -> assertThat(event.reason()).contains("fixed lease of 200 ms ran out")));
	}

	@Test
	void lossActionsRegisteredWhileTheLossIsFoundRunExactlyOnceEach() throws Exception {
		TestLockRegistry holder = testRegistry(Duration.ofSeconds(30));
		for (int round = 0; round < 50; round++) {
			LockLease lease = holder.registry().acquire("order", Duration.ZERO);
			AtomicInteger runs = new AtomicInteger();
			CountDownLatch start = new CountDownLatch(1);
			List<CompletableFuture<Void>> registrations = new ArrayList<>();
			for (int thread = 0; thread < 4; thread++) {
				registrations.add(CompletableFuture.runAsync(() -> {
					awaitQuietly(start);
					for (int i = 0; i < 25; i++) {
						lease.onLoss((lost) -> runs.incrementAndGet());
					}
				}));
			}
			this.commands.set("lock:order", "someone-else");
			start.countDown();
			holder.registry().renewLeases();
			CompletableFuture.allOf(registrations.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
			assertThat(runs).as("round %d", round).hasValue(100);
			assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
			this.commands.del("lock:order");
		}
	}

	@Test
	void lossActionRunsHoldingNoLockThatItsReleaseOnAnotherThreadNeeds() {
		TestLockRegistry holder = testRegistry(Duration.ofSeconds(30));
		LockLease lease = holder.registry().acquire("order", Duration.ZERO);
		CompletableFuture<Throwable> releasedByTheAction = new CompletableFuture<>();
		lease.onLoss((lost) -> {
			CompletableFuture<Void> release = CompletableFuture.runAsync(lease::release);
			releasedByTheAction.complete(release.handle((ignored, failure) -> failure).join());
		});
		this.commands.set("lock:order", "someone-else");
		CompletableFuture.runAsync(holder.registry()::renewLeases);
		assertThat(releasedByTheAction).succeedsWithin(WAIT)
			.satisfies((failure) -> assertThat(failure).hasCauseInstanceOf(LockLostException.class));
	}

	@Test
	void lossActionThatThrowsIsLoggedAndTheOthersStillRun() {
		TestLockRegistry holder = testRegistry(Duration.ofSeconds(30));
		LockLease lease = holder.registry().acquire("order", Duration.ZERO);
		AtomicInteger runs = new AtomicInteger();
		lease.onLoss((lost) -> {
			throw new IllegalStateException("Loss action failed");
		});
		lease.onLoss((lost) -> runs.incrementAndGet());
		this.commands.set("lock:order", "someone-else");
		holder.registry().renewLeases();
		assertThat(runs).hasValue(1);
	}

	@Test
	void lockLostListenerThatBlocksDelaysNoRenewalOfTheOtherLocks() {
		Duration leaseTime = Duration.ofSeconds(3);
		CountDownLatch unblock = new CountDownLatch(1);
		CompletableFuture<Void> listening = new CompletableFuture<>();
		RedisLockRegistry registry = registry(leaseTime, (event) -> {
			if (event instanceof LockLostEvent) {
				listening.complete(null);
				awaitQuietly(unblock);
			}
		}, LockObserver.NONE);
		registry.acquire("order", Duration.ZERO);
		LockLease invoice = registry.acquire("invoice", Duration.ZERO);
		this.commands.set("lock:order", "someone-else");
		try {
			assertThat(listening).succeedsWithin(leaseTime.plus(WAIT));
			await().during(leaseTime).atMost(leaseTime.plus(WAIT)).until(invoice::isValid);
		}
		finally {
			unblock.countDown();
		}
	}

	@Test
	void assertValidPassesWhileHeldAndThrowsOnceLostOrReleased() {
		TestLockRegistry holder = testRegistry(Duration.ofSeconds(30));
		LockLease kept = holder.registry().acquire("kept", Duration.ZERO);
		LockLease lost = holder.registry().acquire("lost", Duration.ZERO);
		assertThatNoException().isThrownBy(kept::assertValid);
		assertThatNoException().isThrownBy(lost::assertValid);
		this.commands.set("lock:lost", "someone-else");
		holder.registry().renewLeases();
		assertThatNoException().isThrownBy(kept::assertValid);
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lost::assertValid)
			.withMessage("Lock 'lost' (fencing token " + lost.fencingToken()
					+ ") is no longer held: it was released, lost, or not renewed within its lease")
			.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("lost"));
		kept.release();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(kept::assertValid);
	}

	/**
	 * Leases of 30 s, renewed only when the test runs the watchdog: a round while Redis
	 * is paused fails within the command timeout and leaves about 30 s on each lease.
	 */
	@Test
	void renewalThatFailsWithTimeLeftIsReportedOncePerHoldAndRoundAndTheLeaseIsRenewedOnceRedisAnswers() {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		List<LockRenewalFailedEvent> failures = new CopyOnWriteArrayList<>();
		List<Object> losses = new CopyOnWriteArrayList<>();
		RedisLockRegistry registry = registry(Duration.ofSeconds(30), (event) -> {
			if (event instanceof LockRenewalFailedEvent failed) {
				failures.add(failed);
			}
			else {
				losses.add(event);
			}
		}, TestLockRegistry.meteredBy(meters));
		LockLease order = registry.acquire("order:1", Duration.ZERO);
		LockLease invoice = registry.acquire("invoice:1", Duration.ZERO);
		redis.server().pause();
		registry.renewLeases();
		redis.server().resume();
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(failures).extracting(LockRenewalFailedEvent::name)
				.containsExactlyInAnyOrder("order:1", "invoice:1"));
		assertThat(failures).allSatisfy((failed) -> {
			assertThat(failed.reason()).contains("did not answer within PT0.5S");
			assertThat(failed.remainingTtl()).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(30));
			assertThat(failed.key()).isEqualTo("lock:" + failed.name());
		});
		assertThat(meters.get("distlock.renewal.failed").tag("name", "order:1").counter().count()).isOne();
		assertThat(meters.get("distlock.renewal.failed").tag("name", "invoice:1").counter().count()).isOne();
		registry.renewLeases();
		assertThat(failures).hasSize(2);
		assertThat(losses).isEmpty();
		assertThat(order.isValid()).isTrue();
		assertThat(invoice.isValid()).isTrue();
		assertThat(this.commands.pttl("lock:order:1")).isGreaterThan(29_000L);
		redis.server().pause();
		registry.renewLeases();
		redis.server().resume();
		await().atMost(WAIT).untilAsserted(() -> assertThat(failures).hasSize(4));
		assertThat(meters.get("distlock.renewal.failed").tag("name", "order:1").counter().count()).isEqualTo(2);
		order.release();
		invoice.release();
		assertThat(losses).isEmpty();
	}

	@Test
	void renewalsThatKeepFailingUntilTheLeaseRunsOutAreReportedFailedThenLost() {
		TestLockRegistry holder = testRegistry(Duration.ofSeconds(3));
		LockLease lease = holder.registry().acquire("order", Duration.ZERO);
		CompletableFuture<LockLostException> loss = new CompletableFuture<>();
		lease.onLoss(loss::complete);
		redis.server().pause();
		assertThat(loss).succeedsWithin(WAIT)
			.satisfies((lost) -> assertThat(lost).hasMessageContaining("its renewal failed"));
		redis.server().resume();
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(holder.lostEvents()).singleElement()
				.satisfies((event) -> assertThat(event.reason()).contains("its renewal failed")));
		assertThat(holder.renewalFailures()).as("published before the loss")
			.isNotEmpty()
			.allSatisfy((failed) -> assertThat(failed.name()).isEqualTo("order"));
	}

	/**
	 * A renewal held up on its way to Redis, as behind a busy pool or on a slow network,
	 * still finds the key, but its reply is held up past the lease it renewed: the hold's
	 * lease ran out, though Redis keeps the key a lease from when the renewal arrived,
	 * and the next renewal would find it there. The hold is lost all the same, and never
	 * valid again.
	 */
	@Test
	void holdWhoseLeaseRanOutWhileItsRenewalWasHeldUpIsLostThoughRedisStillKeepsItsKey() {
		Duration leaseTime = Duration.ofMillis(1500);
		RedisClient client = RedisClient.create(redis.server().uri());
		this.closer.add(() -> LettuceClients.shutdown(client));
		List<LockEvent> events = new CopyOnWriteArrayList<>();
		RedisLockRegistry registry = this.closer.add(new RedisLockRegistry(
				new HeldUpConnection(LockConnections.lettuce(client), LuaScript.RENEW, Duration.ofMillis(400),
						Duration.ofMillis(1300), 1),
				TestLockRegistry.settings(leaseTime), events::add));
		LockLease lease = registry.acquire("order", Duration.ZERO);
		await().atMost(leaseTime.plus(WAIT)).until(() -> !events.isEmpty());
		assertThat(events).singleElement()
			.isInstanceOfSatisfying(LockLostEvent.class,
					(lost) -> assertThat(lost.reason()).isEqualTo("its lease ran out before it was renewed"));
		assertThat(lease.isValid()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		assertThat(lease.isValid()).isFalse();
	}

	@Test
	void lockWhoseFixedLeaseRanOutWhileAnotherInstanceTookItIsNotReentered() {
		TestLockRegistry registry = testRegistry(LEASE);
		RedisLockRegistry other = testRegistry(LEASE).registry();
		FencedLock lock = registry.registry().obtain("a", LeaseOptions.fixed(Duration.ofMillis(100)));
		assertThat(lock.tryLock()).isTrue();
		long token = lock.fencingToken();
		await().atMost(WAIT).until(() -> !registry.lostEvents().isEmpty());
		assertThat(other.tryAcquire("a", WAIT)).as("taken by the other instance").isPresent();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::tryLock)
			.withMessage("Lock 'a' (fencing token " + token + ") was lost while thread '"
					+ Thread.currentThread().getName() + "' held it: it cannot be re-entered; unlock it, "
					+ "which throws LockLostException too, then acquire it again")
			.satisfies((ex) -> assertThat(ex.getFencingToken()).isEqualTo(token));
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lock.getHoldCount()).as("a hold known lost is not counted").isZero();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::fencingToken);
		assertThat(lock.currentHold().isValid()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
		assertThat(lock.tryLock()).as("held by the other instance, asked in Redis").isFalse();
	}

	@Test
	void readLockFoundLostAfterFlushallIsNotReentered() {
		RedisLockRegistry registry = testRegistry(LEASE).registry();
		FencedLock readLock = registry.readWriteLock("catalog").readLock();
		assertThat(readLock.tryLock()).isTrue();
		long token = readLock.fencingToken();
		this.commands.flushall();
		registry.renewLeases();
		assertThat(readLock.currentHold().isValid()).as("found lost by its renewal").isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(readLock::tryLock)
			.withMessageStartingWith("Read lock 'catalog' (fencing token " + token + ") was lost")
			.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("catalog"));
		assertThat(readLock.isHeldByCurrentThread()).isFalse();
		assertThat(readLock.getHoldCount()).as("a hold known lost is not counted").isZero();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(readLock::unlock);
		assertThat(readLock.isHeldByCurrentThread()).isFalse();
		assertThat(readLock.tryLock()).as("acquired again in Redis").isTrue();
		assertThat(this.commands.exists("{lock:catalog}!readers")).isOne();
		readLock.unlock();
	}

	@Test
	void lockEnteredTwiceBeforeItsLossIsLeftByAsManyUnlocksTheOutermostThrowing() {
		RedisLockRegistry registry = testRegistry(LEASE).registry();
		FencedLock lock = registry.obtain("ledger");
		lock.lock();
		lock.lock();
		this.commands.flushall();
		registry.renewLeases();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::lock);
		lock.unlock();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock)
			.withMessageStartingWith("Lock 'ledger' was lost before its release");
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		assertThat(lock.tryLock()).as("acquired again in Redis").isTrue();
		lock.unlock();
	}

	private TestLockRegistry testRegistry(Duration leaseTime) {
		return this.closer.add(TestLockRegistry.create(redis.server().uri(),
				RedisLockSettings.of("lock:", leaseTime).withCommandTimeout(Duration.ofMillis(500))));
	}

	private RedisLockRegistry registry(Duration leaseTime, Consumer<LockEvent> events, LockObserver observer) {
		RedisURI uri = RedisURI.create(redis.server().uri());
		uri.setTimeout(Duration.ofMillis(500));
		RedisClient client = RedisClient.create(uri);
		this.closer.add(() -> LettuceClients.shutdown(client));
		return this.closer.add(new RedisLockRegistry(LockConnections.lettuce(client),
				RedisLockSettings.of("lock:", leaseTime).withCommandTimeout(Duration.ofMillis(500)), events, observer));
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
