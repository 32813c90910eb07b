package dev.distlock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedLock;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockFailureAction;
import dev.distlock.LockLostAction;
import dev.distlock.LockLostException;
import dev.distlock.test.InMemoryLockRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The rules by which {@link DistributedLock} methods returning a future, a {@code Mono}
 * or a {@code Flux} hold their locks, checked on proxies over an
 * {@link InMemoryLockRegistry}: owner-free leases, held until the result completes, fails
 * or is cancelled, one per subscription for a reactive result, and a result that fails at
 * once when its lease is lost. {@link InterceptionRulesTests} checks synchronous methods.
 */
@Timeout(10)
class AsyncInterceptionRulesTests {

	private static final Duration WAIT = Duration.ofSeconds(5);

	private final InMemoryLockRegistry registry = new InMemoryLockRegistry();

	private final LockingProxies proxies = new LockingProxies(this.registry, new LostLockPolicy(LockLostAction.THROW));

	private final Deliveries deliveries = this.proxies.classProxy(new Deliveries());

	@Test
	void futureResultHoldsALeaseUntilItCompletesOnAnotherThread() {
		CompletableFuture<String> pending = new CompletableFuture<>();
		CompletableFuture<String> result = this.deliveries.deliver(pending);
		assertThat(ListedHolds.names(this.registry)).containsExactly("delivery");
		CompletableFuture.runAsync(() -> pending.complete("delivered"));
		assertThat(result).succeedsWithin(WAIT).isEqualTo("delivered");
		assertThat(ListedHolds.names(this.registry)).isEmpty();
	}

	@Test
	void cancellingTheFutureReleasesItsLeaseAndCancelsTheMethodsFuture() {
		CompletableFuture<String> pending = new CompletableFuture<>();
		this.deliveries.deliver(pending).cancel(true);
		assertThat(pending).isCancelled();
		assertThat(ListedHolds.names(this.registry)).isEmpty();
	}

	@Test
	void futureCompletingAfterItsLeaseWasLostFailsWithLockLostException() {
		CompletableFuture<String> pending = new CompletableFuture<>();
		CompletableFuture<String> result = this.deliveries.deliver(pending);
		ListedHolds.loseAll(this.registry);
		pending.complete("delivered");
		assertThat(result).failsWithin(WAIT)
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockLostException.class);
	}

	@Test
	void futureFailsAtOnceWhenItsLeaseIsLostAndCancelsTheMethodsFuture() {
		CompletableFuture<String> pending = new CompletableFuture<>();
		CompletableFuture<String> result = this.deliveries.deliver(pending);
		ListedHolds.loseAll(this.registry);
		assertThat(result).failsWithin(WAIT)
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(LockLostException.class);
		await().atMost(WAIT).until(pending::isCancelled);
	}

	@Test
	void futureRunsOnAfterItsLeaseWasLostWhenOnLostIsLog() {
		Deliveries logging = new LockingProxies(this.registry, new LostLockPolicy(LockLostAction.LOG))
			.classProxy(new Deliveries());
		CompletableFuture<String> pending = new CompletableFuture<>();
		CompletableFuture<String> result = logging.deliver(pending);
		ListedHolds.loseAll(this.registry);
		pending.complete("delivered");
		assertThat(result).succeedsWithin(WAIT).isEqualTo("delivered");
	}

	@Test
	void futureFromAGenericInterfaceMethodHoldsItsLeaseThroughAnInterfaceProxy() {
		Dispatch dispatch = new Dispatch();
		@SuppressWarnings("unchecked")
		Job<CompletableFuture<String>> job = this.proxies.interfaceProxy(dispatch, Job.class);
		CompletableFuture<String> result = job.run("j-1");
		assertThat(ListedHolds.names(this.registry)).containsExactly("job:j-1");
		dispatch.pending.complete("done");
		assertThat(result).succeedsWithin(WAIT).isEqualTo("done");
		assertThat(ListedHolds.names(this.registry)).isEmpty();
	}

	@Test
	void skippedCallsReturnAnEmptyResultWithoutRunning() {
		this.registry.acquire("depot", Duration.ZERO);
		assertThat(this.deliveries.skippingFuture()).isCompletedWithValue(null);
		StepVerifier.create(this.deliveries.skippingMono()).expectComplete().verify(WAIT);
		StepVerifier.create(this.deliveries.skippingFlux()).expectComplete().verify(WAIT);
		assertThat(this.deliveries.runs()).isZero();
	}

	@Test
	void monoRunsTheMethodHoldingALeaseFromSubscriptionUntilItCompletes() {
		Sinks.One<String> status = Sinks.one();
		Mono<String> tracking = this.deliveries.track("p-1", status.asMono());
		assertThat(this.deliveries.runs()).isZero();
		assertThat(ListedHolds.names(this.registry)).isEmpty();
		StepVerifier.create(tracking)
			.then(() -> awaitHeldNames("tracking:p-1"))
			.then(() -> status.tryEmitValue("delivered"))
			.expectNext("delivered")
			.expectComplete()
			.verify(WAIT);
		awaitHeldNames();
		assertThat(this.deliveries.runs()).isOne();
	}

	@Test
	void fluxThatFailsReleasesItsLeaseAndKeepsItsError() {
		Sinks.Many<String> stops = Sinks.many().unicast().onBackpressureBuffer();
		StepVerifier.create(this.deliveries.route("p-1", stops.asFlux()))
			.then(() -> awaitHeldNames("route:p-1"))
			.then(() -> stops.tryEmitError(new IllegalStateException("road closed")))
			.expectErrorMessage("road closed")
			.verify(WAIT);
		awaitHeldNames();
	}

	@Test
	void monoWhoseLeaseIsLostFailsAndCancelsTheMethodsMono() {
		AtomicBoolean cancelled = new AtomicBoolean();
		StepVerifier.create(this.deliveries.track("p-1", Mono.<String>never().doOnCancel(() -> cancelled.set(true))))
			.then(() -> awaitHeldNames("tracking:p-1"))
			.then(() -> ListedHolds.loseAll(this.registry))
			.expectError(LockLostException.class)
			.verify(WAIT);
		assertThat(cancelled).isTrue();
	}

	@Test
	void fluxWhoseLeaseIsLostFailsAfterWhatItEmittedAndCancelsTheMethodsFlux() {
		AtomicBoolean cancelled = new AtomicBoolean();
		Sinks.Many<String> stops = Sinks.many().unicast().onBackpressureBuffer();
		StepVerifier.create(this.deliveries.route("p-1", stops.asFlux().doOnCancel(() -> cancelled.set(true))))
			.then(() -> awaitHeldNames("route:p-1"))
			.then(() -> stops.tryEmitNext("depot"))
			.expectNext("depot")
			.then(() -> ListedHolds.loseAll(this.registry))
			.expectError(LockLostException.class)
			.verify(WAIT);
		assertThat(cancelled).isTrue();
	}

	@Test
	void cancellingASubscriptionReleasesItsLease() {
		Disposable subscription = this.deliveries.track("p-1", Mono.never()).subscribe();
		awaitHeldNames("tracking:p-1");
		subscription.dispose();
		awaitHeldNames();
	}

	@Test
	void eachSubscriptionToAFluxHoldsALeaseOfItsOwn() {
		Sinks.Many<String> stops = Sinks.many().replay().all();
		Flux<String> route = this.deliveries.route("p-1", stops.asFlux());
		route.subscribe();
		awaitHeldNames("route:p-1");
		StepVerifier.create(route).expectError(LockAcquisitionException.class).verify(WAIT);
		stops.tryEmitNext("depot");
		stops.tryEmitComplete();
		awaitHeldNames();
		StepVerifier.create(route).expectNext("depot").expectComplete().verify(WAIT);
		assertThat(this.deliveries.runs()).isEqualTo(2);
	}

	private void awaitHeldNames(String... names) {
		await().atMost(WAIT)
			.pollInterval(Duration.ofMillis(5))
			.untilAsserted(() -> assertThat(ListedHolds.names(this.registry)).containsExactly(names));
	}

	/**
	 * Locked methods returning what the test gives them to return.
	 */
	static class Deliveries {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@DistributedLock(name = "delivery")
		public CompletableFuture<String> deliver(CompletableFuture<String> pending) {
			return ran(pending);
		}

		@DistributedLock(name = "tracking", key = "#parcel")
		public Mono<String> track(String parcel, Mono<String> status) {
			return ran(status);
		}

		@DistributedLock(name = "route", key = "#parcel")
		public Flux<String> route(String parcel, Flux<String> stops) {
			return ran(stops);
		}

		@DistributedLock(name = "depot", onFailure = LockFailureAction.SKIP)
		public CompletableFuture<String> skippingFuture() {
			return ran(CompletableFuture.completedFuture("ran"));
		}

		@DistributedLock(name = "depot", onFailure = LockFailureAction.SKIP)
		public Mono<String> skippingMono() {
			return ran(Mono.just("ran"));
		}

		@DistributedLock(name = "depot", onFailure = LockFailureAction.SKIP)
		public Flux<String> skippingFlux() {
			return ran(Flux.just("ran"));
		}

		private <T> T ran(T result) {
			this.runs.incrementAndGet();
			return result;
		}

	}

	/**
	 * A generic interface, whose method a JDK proxy calls with an erased return type.
	 *
	 * @param <T> the result type
	 */
	interface Job<T> {

		T run(String id);

	}

	/**
	 * A locked method returning a future through a generic interface.
	 */
	static class Dispatch implements Job<CompletableFuture<String>> {

		final CompletableFuture<String> pending = new CompletableFuture<>();

		@Override
		@DistributedLock(name = "job", key = "#id")
		public CompletableFuture<String> run(String id) {
			return this.pending;
		}

	}

}
