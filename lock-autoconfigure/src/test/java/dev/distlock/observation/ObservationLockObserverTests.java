package dev.distlock.observation;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.DistributedLockException;
import dev.distlock.FencedLock;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TestThread;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The observations {@code distlock.wait} and {@code distlock.hold} of a
 * {@link RedisLockRegistry} on a real {@code redis-server}, recorded by a
 * {@link TestObservationRegistry}, which also checks that each is started, stopped and
 * given events in a valid order.
 */
@Timeout(60)
class ObservationLockObserverTests {

	private static final Duration WAIT = Duration.ofSeconds(5);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	private final TestObservationRegistry observations = TestObservationRegistry.create();

	private RedisLockRegistry registry;

	/**
	 * A registry whose leases of 30 s are renewed only when the test runs the watchdog,
	 * and whose commands fail after 2 s, so that a round while Redis is paused fails and
	 * leaves time on each lease.
	 */
	@BeforeEach
	void createRegistry() {
		this.registry = this.closer.add(TestLockRegistry.create(redis.server().uri(),
				RedisLockSettings.of("lock:", Duration.ofSeconds(30)).withCommandTimeout(Duration.ofSeconds(2)),
				new ObservationLockObserver(this.observations)))
			.registry();
	}

	@AfterEach
	void close() throws Exception {
		redis.server().resume();
		this.closer.close();
	}

	@Test
	void acquisitionIsAWaitThenAHoldOfTheCallersTraceNamedAfterTheBaseNameWithKeyValueAndFencingToken() {
		Observation request = Observation.start("request", this.observations);
		LockLease lease;
		try (Observation.Scope scope = request.openScope()) {
			lease = this.registry.acquire(LockName.keyed("order", "42"), WAIT);
		}
		String fencingToken = Long.toString(lease.fencingToken());
		assertThat(this.observations).hasObservationWithNameEqualTo("distlock.wait")
			.that()
			.hasContextualNameEqualTo("distlock.wait order")
			.hasLowCardinalityKeyValue("name", "order")
			.hasLowCardinalityKeyValue("result", "acquired")
			.hasHighCardinalityKeyValue("key", "42")
			.hasHighCardinalityKeyValue("fencing.token", fencingToken)
			.hasParentObservationEqualTo(request)
			.doesNotHaveError()
			.hasBeenStopped();
		assertThat(this.observations).hasObservationWithNameEqualTo("distlock.hold")
			.that()
			.hasLowCardinalityKeyValue("name", "order")
			.hasHighCardinalityKeyValue("key", "42")
			.hasHighCardinalityKeyValue("fencing.token", fencingToken)
			.hasParentObservationEqualTo(request)
			.hasBeenStarted()
			.isNotStopped();
		lease.release();
		request.stop();
		assertThat(this.observations).hasObservationWithNameEqualTo("distlock.hold")
			.that()
			.hasContextualNameEqualTo("distlock.hold order")
			.hasLowCardinalityKeyValue("result", "released")
			.doesNotHaveEvent("lost")
			.hasBeenStopped();
	}

	@Test
	void waitNotAcquiredWithinItsWaitTimeEndsFailedAndStartsNoHold() {
		try (LockLease held = this.registry.acquire("report", Duration.ZERO)) {
			assertThat(this.registry.tryAcquire("report", Duration.ofMillis(100))).isEmpty();
		}
		assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("distlock.wait", 2)
			.hasNumberOfObservationsWithNameEqualTo("distlock.hold", 1)
			.hasAnObservation((observation) -> observation.hasNameEqualTo("distlock.wait")
				.hasLowCardinalityKeyValue("name", "report")
				.hasLowCardinalityKeyValue("result", "failed")
				.doesNotHaveHighCardinalityKeyValueWithKey("key")
				.doesNotHaveHighCardinalityKeyValueWithKey("fencing.token")
				.doesNotHaveError());
	}

	@Test
	void waitThatRedisDoesNotAnswerEndsWithTheErrorAndStartsNoHold() {
		redis.server().pause();
		assertThatExceptionOfType(DistributedLockException.class)
			.isThrownBy(() -> this.registry.acquire(LockName.keyed("order", "9"), Duration.ZERO));
		redis.server().resume();
		assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("distlock.hold", 0)
			.hasObservationWithNameEqualTo("distlock.wait")
			.that()
			.hasLowCardinalityKeyValue("result", "error")
			.hasError()
			.hasBeenStopped();
	}

	@Test
	void holdFoundLostHasALostEventAndEndsLostAtItsRelease() {
		LockLease lease = this.registry.acquire(LockName.keyed("order", "7"), Duration.ZERO);
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), WAIT)) {
			client.sync().set("lock:order:7", "someone-else");
		}
		this.registry.renewLeases();
		assertThat(this.observations).hasObservationWithNameEqualTo("distlock.hold")
			.that()
			.hasEvent("lost")
			.isNotStopped();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(lease::release);
		assertThat(this.observations).hasObservationWithNameEqualTo("distlock.hold")
			.that()
			.hasLowCardinalityKeyValue("name", "order")
			.hasLowCardinalityKeyValue("result", "lost")
			.hasBeenStopped();
	}

	@Test
	void renewalThatFailsIsAnEventOfTheHoldWhichEndsReleased() {
		LockLease lease = this.registry.acquire(LockName.keyed("order", "8"), Duration.ZERO);
		redis.server().pause();
		this.registry.renewLeases();
		redis.server().resume();
		assertThat(this.observations).hasObservationWithNameEqualTo("distlock.hold")
			.that()
			.hasEvent("renewal.failed")
			.doesNotHaveEvent("lost")
			.isNotStopped();
		lease.release();
		assertThat(this.observations).hasObservationWithNameEqualTo("distlock.hold")
			.that()
			.hasLowCardinalityKeyValue("result", "released")
			.hasBeenStopped();
	}

	@Test
	void lockHandedOverWithinTheJvmIsAWaitAndAHoldOfTheWaitersTrace() throws Exception {
		FencedLock lock = this.registry.obtain("job");
		TestThread holder = this.closer.add(TestThread.start("holder"));
		TestThread waiter = this.closer.add(TestThread.start("waiter"));
		Observation holderRequest = Observation.start("holder.request", this.observations);
		Observation waiterRequest = Observation.start("waiter.request", this.observations);
		long holderToken = holder.call(() -> inScope(holderRequest, () -> {
			lock.lock();
			return lock.fencingToken();
		})).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		CompletableFuture<Long> waiting = waiter.call(() -> inScope(waiterRequest, () -> {
			assertThat(lock.tryLock(WAIT)).isTrue();
			return lock.fencingToken();
		}));
		waiter.awaitIn(TestLockRegistry.WAITING_FOR_RELEASE, WAIT);
		holder.run(lock::unlock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		long waiterToken = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		waiter.run(lock::unlock).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		holderRequest.stop();
		waiterRequest.stop();
		assertThat(this.observations).hasNumberOfObservationsWithNameEqualTo("distlock.wait", 2)
			.hasNumberOfObservationsWithNameEqualTo("distlock.hold", 2)
			.forAllObservationsWithNameEqualTo("distlock.hold",
					(hold) -> hold.hasLowCardinalityKeyValue("result", "released"))
			.hasAnObservation((hold) -> hold.hasNameEqualTo("distlock.hold")
				.hasHighCardinalityKeyValue("fencing.token", Long.toString(holderToken))
				.hasParentObservationEqualTo(holderRequest))
			.hasAnObservation((hold) -> hold.hasNameEqualTo("distlock.hold")
				.hasHighCardinalityKeyValue("fencing.token", Long.toString(waiterToken))
				.hasParentObservationEqualTo(waiterRequest))
			.hasAnObservation((wait) -> wait.hasNameEqualTo("distlock.wait")
				.hasLowCardinalityKeyValue("result", "acquired")
				.hasHighCardinalityKeyValue("fencing.token", Long.toString(waiterToken))
				.hasParentObservationEqualTo(waiterRequest));
	}

	private static <T> T inScope(Observation parent, Callable<T> task) throws Exception {
		try (Observation.Scope scope = parent.openScope()) {
			return task.call();
		}
	}

}
