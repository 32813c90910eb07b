package dev.distlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.LeaseOptions;
import dev.distlock.Leadership;
import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockEvent;
import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.testsupport.TestThread;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What the {@link InMemoryLockRegistry} does beyond the contract every registry keeps:
 * renewals that a test pauses, the lock delay, what it lists, publishes and does when
 * closed.
 */
@Timeout(30)
class InMemoryLockRegistryTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final InMemoryLockStore store = new InMemoryLockStore();

	private final List<LockEvent> events = new CopyOnWriteArrayList<>();

	private final InMemoryLockRegistry registry = new InMemoryLockRegistry(this.store, Duration.ofMillis(200),
			Duration.ZERO, this.events::add, LockObserver.NONE);

	@AfterEach
	void close() {
		this.registry.close();
		this.store.close();
	}

	@Test
	void holdsRunOutALeaseAfterRenewalsPauseAndAreReportedLost() {
		LockLease lease = this.registry.acquire("report", Duration.ZERO);
		LockLease permit = this.registry.semaphore("pool", 2).acquire(Duration.ZERO);
		List<String> lost = new CopyOnWriteArrayList<>();
		lease.onLoss((ex) -> lost.add(ex.getMessage()));
		this.registry.pauseRenewals();
		assertThat(lease.isValid()).isTrue();
		await().atMost(WAIT).until(() -> !lease.isValid() && !permit.isValid());
		assertThat(this.registry.isLocked("report")).isFalse();
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(lost).singleElement()
				.isEqualTo("Lock 'report' was lost while held (fencing token 1): its lease ran out without a renewal"));
		await().atMost(WAIT)
			.untilAsserted(() -> assertThat(this.events).extracting(LockEvent::name)
				.containsExactlyInAnyOrder("report", "pool"));
		assertThat(this.events).allMatch(LockLostEvent.class::isInstance);
	}

	@Test
	void holdsOutliveTheirLeaseOnceRenewalsResume() throws InterruptedException {
		LockLease lease = this.registry.acquire("report", Duration.ZERO);
		this.registry.pauseRenewals();
		LockLease takenWhilePaused = this.registry.acquire("invoice", Duration.ZERO);
		this.registry.resumeRenewals();
		Thread.sleep(400);
		assertThat(lease.isValid()).isTrue();
		assertThat(takenWhilePaused.isValid()).isTrue();
		assertThat(this.events).isEmpty();
	}

	@Test
	void lockWhoseLeaseRanOutStaysTakenForItsLockDelay() {
		LockLease lease = this.registry
			.tryAcquire("report", Duration.ZERO,
					LeaseOptions.fixed(Duration.ofMillis(50)).withLockDelay(Duration.ofMillis(500)))
			.orElseThrow();
		await().atMost(WAIT).until(() -> !lease.isValid());
		assertThat(this.registry.tryAcquire("report", Duration.ZERO)).as("within the lock delay").isEmpty();
		assertThat(this.registry.remainingLease("report"))
			.hasValueSatisfying((left) -> assertThat(left).isPositive().isLessThanOrEqualTo(Duration.ofMillis(500)));
		assertThat(this.registry.tryAcquire("report", WAIT)).isPresent();
	}

	@Test
	void permitWhoseLeaseRanOutKeepsItsPlaceForTheLockDelay() {
		try (InMemoryLockRegistry delayed = new InMemoryLockRegistry(this.store, Duration.ofMillis(200),
				Duration.ofSeconds(10), this.events::add, LockObserver.NONE)) {
			LockLease permit = delayed.semaphore("pool", 1).acquire(Duration.ZERO);
			delayed.pauseRenewals();
			await().atMost(WAIT).until(() -> !permit.isValid());
			assertThat(this.registry.semaphore("pool", 1).tryAcquire(Duration.ZERO)).as("within the lock delay")
				.isEmpty();
			assertThat(this.registry.semaphore("pool", 2).tryAcquire(Duration.ZERO)).as("the other permit")
				.hasValueSatisfying(LockLease::release);
		}
	}

	@Test
	void readShareWhoseLeaseRanOutKeepsOutWritersAloneForTheLockDelay() {
		try (InMemoryLockRegistry delayed = new InMemoryLockRegistry(this.store, Duration.ofMillis(200),
				Duration.ofSeconds(10), this.events::add, LockObserver.NONE)) {
			FencedLock staleReader = delayed.readWriteLock("catalog").readLock();
			staleReader.lock();
			LockLease share = staleReader.currentHold();
			delayed.pauseRenewals();
			await().atMost(WAIT).until(() -> !share.isValid());
			assertThat(this.registry.tryAcquire("catalog", Duration.ZERO)).as("a writer within the lock delay")
				.isEmpty();
			FencedLock reader = this.registry.readWriteLock("catalog").readLock();
			assertThat(reader.tryLock()).as("a reader within the lock delay").isTrue();
			reader.unlock();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(staleReader::unlock);
		}
	}

	@Test
	void heldLocksListEachHoldWithItsOwnerAndKind() {
		FencedLock lock = this.registry.obtain("order");
		lock.lock();
		this.registry.readWriteLock("catalog").readLock().lock();
		LockLease permit = this.registry.semaphore("pool", 3).acquire(Duration.ZERO);
		String thread = Thread.currentThread().getName();
		assertThat(this.registry.heldLocks()).extracting((held) -> held.name() + ":" + held.kind() + ":" + held.owner())
			.containsExactly("catalog:shared:" + thread, "order:exclusive:" + thread, "pool:permit:lease");
		permit.release();
		lock.unlock();
		this.registry.readWriteLock("catalog").readLock().unlock();
		assertThat(this.registry.heldLocks()).isEmpty();
	}

	@Test
	void leadershipPublishesItsGrantAndItsRevocation() {
		Leadership leadership = this.registry.leadership("scheduler");
		leadership.start();
		assertThat(leadership.isLeader()).isTrue();
		leadership.stop();
		assertThat(leadership.isLeader()).isFalse();
		assertThat(this.registry.isLocked("scheduler")).isFalse();
		await().atMost(WAIT).untilAsserted(() -> assertThat(this.events).hasSize(2));
		assertThat(this.events.get(0)).isInstanceOfSatisfying(LeadershipGrantedEvent.class,
				(granted) -> assertThat(granted.term().fencingToken()).isEqualTo(granted.fencingToken()));
		assertThat(this.events.get(1)).isInstanceOfSatisfying(LeadershipRevokedEvent.class,
				(revoked) -> assertThat(revoked.reason()).isEqualTo("it stopped"));
	}

	@Test
	void termRunsItsLossActionsBeforeItsRevocationWhenTheLeaderYields() {
		Leadership leadership = this.registry.leadership("scheduler");
		leadership.start();
		await().atMost(WAIT).until(() -> this.events.size() == 1);
		LockLease term = ((LeadershipGrantedEvent) this.events.get(0)).term();
		List<String> told = new CopyOnWriteArrayList<>();
		term.onLoss((ended) -> told.add(ended.getMessage() + " after " + this.events.size() + " event"));
		leadership.yieldLeadership();
		assertThat(term.isValid()).isFalse();
		await().atMost(WAIT).until(() -> this.events.size() >= 2);
		assertThat(this.events.get(1)).isInstanceOf(LeadershipRevokedEvent.class);
		assertThat(told)
			.containsExactly("Leadership 'scheduler' (fencing token 1) was revoked: it yielded after 1 event");
	}

	@Test
	void leadershipRestartedByItsListenerServesOneTermAtATime() {
		CountDownLatch revocationHeld = new CountDownLatch(1);
		Leadership[] restarted = new Leadership[1];
		Consumer<LockEvent> listener = (event) -> {
			this.events.add(event);
			if (event instanceof LeadershipGrantedEvent && this.events.size() == 1) {
				restarted[0].stop();
				restarted[0].start();
			}
			else if (event instanceof LeadershipRevokedEvent) {
				awaitQuietly(revocationHeld);
			}
		};
		try (InMemoryLockRegistry registry = new InMemoryLockRegistry(this.store, Duration.ofMillis(200), Duration.ZERO,
				listener, LockObserver.NONE)) {
			restarted[0] = registry.leadership("scheduler");
			restarted[0].start();
			await().atMost(WAIT).until(() -> this.events.size() == 2);
			LockFaults.expire(registry, "scheduler");
			revocationHeld.countDown();
			await().atMost(WAIT).until(() -> this.events.size() == 4);
			assertThat(restarted[0].isLeader()).isTrue();
			assertThat(this.events).extracting((event) -> event.getClass().getSimpleName() + " " + event.fencingToken())
				.containsExactly("LeadershipGrantedEvent 1", "LeadershipRevokedEvent 1", "LockLostEvent 1",
						"LeadershipGrantedEvent 2");
		}
		finally {
			revocationHeld.countDown();
		}
	}

	@Test
	void closeReportsTheHoldsStillHeldLostAndFreesTheirNames() {
		LockLease lease = this.registry.acquire("report", Duration.ZERO);
		this.registry.close();
		assertThat(lease.isValid()).isFalse();
		assertThat(this.events).singleElement()
			.isInstanceOfSatisfying(LockLostEvent.class,
					(lost) -> assertThat(lost.reason()).isEqualTo("the registry was closed while it was held"));
		assertThat(this.store.remainingLease("report")).isEmpty();
	}

	@Test
	void closeCalledByAListenerDoesNotWaitForItsOwnDelivery() {
		InMemoryLockRegistry[] closing = new InMemoryLockRegistry[1];
		CompletableFuture<Void> closed = new CompletableFuture<>();
		Consumer<LockEvent> listener = (event) -> {
			closing[0].close();
			closed.complete(null);
		};
		try (InMemoryLockRegistry registry = new InMemoryLockRegistry(this.store, Duration.ofSeconds(10), Duration.ZERO,
				listener, LockObserver.NONE)) {
			closing[0] = registry;
			registry.acquire("report", Duration.ZERO);
			LockFaults.expire(registry, "report");
			assertThat(closed).succeedsWithin(Duration.ofSeconds(2));
		}
	}

	@Test
	void holdsOfOneNameOnManyThreadsNeverOverlap() {
		int[] inside = new int[1];
		ExecutorService pool = Executors.newFixedThreadPool(4);
		try {
			List<CompletableFuture<Void>> threads = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				boolean owned = (i % 2 == 0);
				threads.add(CompletableFuture.runAsync(() -> {
					for (int n = 0; n < 500; n++) {
						Runnable release = acquire("counter", owned);
						inside[0]++;
						release.run();
					}
				}, pool));
			}
			CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).join();
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(inside[0]).isEqualTo(2000);
		assertThat(this.registry.acquire("counter", Duration.ZERO).fencingToken()).isEqualTo(2001);
	}

	@Test
	void readLockOfAThreadWhoseWriteLockWasLostWaitsForTheNextWriter() {
		FencedReadWriteLock catalog = this.registry.readWriteLock("catalog");
		catalog.writeLock().lock();
		LockFaults.expire(this.registry, "catalog");
		LockLease nextWriter = this.registry.acquire("catalog", Duration.ZERO);
		assertThat(catalog.readLock().tryLock()).as("a read share beside the next writer").isFalse();
		nextWriter.release();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(catalog.writeLock()::unlock);
	}

	@Test
	void holdTakenWhileRenewalsResumeIsRenewed() throws InterruptedException {
		AtomicReference<InMemoryLockRegistry> resuming = new AtomicReference<>();
		LockObserver resumeOnAcquire = new LockObserver() {

			@Override
			public Wait waitStarted(LockName name) {
				return new Wait() {

					@Override
					public Hold acquired(long fencingToken) {
						resuming.get().resumeRenewals();
						return Hold.NONE;
					}

				};
			}

		};
		try (InMemoryLockRegistry resumed = new InMemoryLockRegistry(this.store, Duration.ofMillis(200), Duration.ZERO,
				this.events::add, resumeOnAcquire)) {
			resuming.set(resumed);
			resumed.pauseRenewals();
			LockLease lease = resumed.acquire("report", Duration.ZERO);
			Thread.sleep(400);
			assertThat(lease.isValid()).isTrue();
			assertThat(this.events).isEmpty();
			lease.release();
		}
	}

	@Test
	void lossFoundByAWaiterIsReportedWhileItWaits() throws InterruptedException {
		CountDownLatch leaseWatcherBack = new CountDownLatch(1);
		this.store.schedule(() -> awaitQuietly(leaseWatcherBack), 0, TimeUnit.NANOSECONDS);
		try (TestThread waiter = TestThread.start("waiter")) {
			this.registry.tryAcquire("report", Duration.ZERO,
					LeaseOptions.fixed(Duration.ofMillis(50)).withLockDelay(Duration.ofSeconds(10)));
			CompletableFuture<Optional<LockLease>> waited = waiter
				.call(() -> this.registry.tryAcquire("report", Duration.ofSeconds(4)));
			await().atMost(Duration.ofSeconds(2))
				.untilAsserted(() -> assertThat(this.events).singleElement().isInstanceOf(LockLostEvent.class));
			assertThat(waited).isNotDone();
		}
		finally {
			leaseWatcherBack.countDown();
		}
	}

	@Test
	void forceReleaseOfANameNoLongerKeptAfterItsMinimumHoldFindsNothing() throws InterruptedException {
		this.registry.tryAcquire("report", Duration.ZERO, LeaseOptions.WATCHDOG.withMinHoldTime(Duration.ofMillis(50)))
			.orElseThrow()
			.release();
		Thread.sleep(100);
		assertThat(this.registry.forceRelease("report")).isEmpty();
	}

	private Runnable acquire(String name, boolean owned) {
		if (owned) {
			FencedLock lock = this.registry.obtain(name);
			lock.lock();
			return lock::unlock;
		}
		return this.registry.acquire(name, WAIT)::release;
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
