package dev.distlock.aop;

import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedLock;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockContext;
import dev.distlock.LockFailureAction;
import dev.distlock.LockKeyException;
import dev.distlock.LockLease;
import dev.distlock.LockLostAction;
import dev.distlock.test.InMemoryLockRegistry;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.observers.TestObserver;
import io.reactivex.rxjava3.processors.ReplayProcessor;
import io.reactivex.rxjava3.subjects.SingleSubject;
import io.reactivex.rxjava3.subscribers.TestSubscriber;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link DistributedLock} methods returning RxJava types, which Spring's reactive
 * adapters turn into publishers, hold their locks per subscription as {@code Mono} and
 * {@code Flux} methods do ({@link AsyncInterceptionRulesTests}), checked on proxies over
 * an {@link InMemoryLockRegistry}.
 */
@Timeout(10)
class RxJavaInterceptionRulesTests {

	private static final long WAIT_SECONDS = 5;

	private final InMemoryLockRegistry registry = new InMemoryLockRegistry();

	private final LockingProxies proxies = new LockingProxies(this.registry, new LostLockPolicy(LockLostAction.THROW));

	private final Shipments shipments = this.proxies.classProxy(new Shipments());

	@Test
	void singleRunsTheMethodHoldingALeaseFromSubscriptionUntilItSucceeds() {
		SingleSubject<String> status = SingleSubject.create();
		Single<String> tracking = this.shipments.track("p-1", status);
		assertThat(this.shipments.runs()).isZero();
		assertThat(ListedHolds.names(this.registry)).isEmpty();
		TestObserver<String> observer = tracking.test();
		awaitHeldNames("tracking:p-1");
		assertThat(this.shipments.runs()).isOne();
		status.onSuccess("delivered");
		observer.awaitDone(WAIT_SECONDS, TimeUnit.SECONDS).assertValue("delivered").assertComplete();
		assertThat(ListedHolds.names(this.registry)).isEmpty();
	}

	@Test
	void eachSubscriptionToAFlowableHoldsALeaseOfItsOwn() {
		ReplayProcessor<String> stops = ReplayProcessor.create();
		Flowable<String> route = this.shipments.route("p-1", stops);
		TestSubscriber<String> first = route.test();
		awaitHeldNames("route:p-1");
		route.test().awaitDone(WAIT_SECONDS, TimeUnit.SECONDS).assertError(LockAcquisitionException.class);
		stops.onNext("depot");
		stops.onComplete();
		first.awaitDone(WAIT_SECONDS, TimeUnit.SECONDS).assertValue("depot").assertComplete();
		awaitHeldNames();
		route.test().awaitDone(WAIT_SECONDS, TimeUnit.SECONDS).assertValue("depot").assertComplete();
		assertThat(this.shipments.runs()).isEqualTo(2);
	}

	@Test
	void cancellingAFlowableSubscriptionReleasesItsLease() {
		TestSubscriber<String> subscriber = this.shipments.route("p-1", Flowable.never()).test();
		awaitHeldNames("route:p-1");
		subscriber.cancel();
		awaitHeldNames();
	}

	@Test
	void methodBodySeesTheLeaseOfItsSubscriptionInLockContext() {
		this.shipments.currentLeaseName("p-1")
			.test()
			.awaitDone(WAIT_SECONDS, TimeUnit.SECONDS)
			.assertValue("lease:p-1");
	}

	@Test
	void singleWithANullKeyIsAnErrorOfTheSingle() {
		this.shipments.track(null, Single.just("delivered"))
			.test()
			.awaitDone(WAIT_SECONDS, TimeUnit.SECONDS)
			.assertError(LockKeyException.class);
		assertThat(this.shipments.runs()).isZero();
	}

	@Test
	void skippedCallsCompleteEmptyWithoutRunning() {
		this.registry.acquire("depot", Duration.ZERO);
		this.shipments.skippingMaybe().test().awaitDone(WAIT_SECONDS, TimeUnit.SECONDS).assertResult();
		this.shipments.skippingCompletable().test().awaitDone(WAIT_SECONDS, TimeUnit.SECONDS).assertResult();
		this.shipments.skippingFlowable().test().awaitDone(WAIT_SECONDS, TimeUnit.SECONDS).assertResult();
		assertThat(this.shipments.runs()).isZero();
	}

	@Test
	void skippedSingleSignalsThatItHasNoValue() {
		this.registry.acquire("depot", Duration.ZERO);
		this.shipments.skippingSingle()
			.test()
			.awaitDone(WAIT_SECONDS, TimeUnit.SECONDS)
			.assertError(NoSuchElementException.class);
		assertThat(this.shipments.runs()).isZero();
	}

	private void awaitHeldNames(String... names) {
		await().atMost(Duration.ofSeconds(WAIT_SECONDS))
			.pollInterval(Duration.ofMillis(5))
			.untilAsserted(() -> assertThat(ListedHolds.names(this.registry)).containsExactly(names));
	}

	/**
	 * Locked methods returning RxJava types, most of them what the test gives them to
	 * return.
	 */
	static class Shipments {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@DistributedLock(name = "tracking", key = "#parcel")
		public Single<String> track(String parcel, Single<String> status) {
			return ran(status);
		}

		@DistributedLock(name = "route", key = "#parcel")
		public Flowable<String> route(String parcel, Flowable<String> stops) {
			return ran(stops);
		}

		@DistributedLock(name = "lease", key = "#parcel")
		public Single<String> currentLeaseName(String parcel) {
			return ran(Single.just(LockContext.currentLease().map(LockLease::name).orElse("none")));
		}

		@DistributedLock(name = "depot", onFailure = LockFailureAction.SKIP)
		public Single<String> skippingSingle() {
			return ran(Single.just("ran"));
		}

		@DistributedLock(name = "depot", onFailure = LockFailureAction.SKIP)
		public Maybe<String> skippingMaybe() {
			return ran(Maybe.just("ran"));
		}

		@DistributedLock(name = "depot", onFailure = LockFailureAction.SKIP)
		public Completable skippingCompletable() {
			return ran(Completable.complete());
		}

		@DistributedLock(name = "depot", onFailure = LockFailureAction.SKIP)
		public Flowable<String> skippingFlowable() {
			return ran(Flowable.just("ran"));
		}

		private <T> T ran(T result) {
			this.runs.incrementAndGet();
			return result;
		}

	}

}
