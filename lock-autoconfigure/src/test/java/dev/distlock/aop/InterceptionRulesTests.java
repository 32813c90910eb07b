package dev.distlock.aop;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedLock;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockContext;
import dev.distlock.LockFailureAction;
import dev.distlock.LockKeyException;
import dev.distlock.LockLease;
import dev.distlock.LockLostAction;
import dev.distlock.LockLostException;
import dev.distlock.test.InMemoryLockRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.aop.framework.AopContext;
import org.springframework.aop.support.AopUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIOException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The rules by which synchronous {@link DistributedLock} methods hold their locks,
 * checked on proxies over an {@link InMemoryLockRegistry}: which locks a call takes, what
 * it does when it cannot take them, and how it ends. {@link AsyncInterceptionRulesTests}
 * checks futures and reactive results; {@link DistLockInterceptionTests} checks the
 * advisors in an application context, and {@link DistributedLockInterceptorTests} and its
 * neighbours the auto-configured interceptor against real Redis.
 */
@Timeout(10)
class InterceptionRulesTests {

	private final InMemoryLockRegistry registry = new InMemoryLockRegistry();

	private final LockingProxies proxies = new LockingProxies(this.registry, new LostLockPolicy(LockLostAction.THROW));

	private final Orders orders = this.proxies.classProxy(new Orders(this.registry));

	@Test
	void methodRunsHoldingTheLockOfItsName() {
		assertThat(this.orders.ship().held()).containsExactly("shipping");
		assertThat(ListedHolds.names(this.registry)).isEmpty();
	}

	@Test
	void methodRunsHoldingTheLockOfItsNameAndKey() {
		assertThat(this.orders.pay(42).held()).containsExactly("order:42");
		assertThat(ListedHolds.names(this.registry)).isEmpty();
	}

	@Test
	void methodWithoutANameHoldsTheLockOfItsTargetClassAndMethodThroughEitherProxy() {
		Payments byInterface = this.proxies.interfaceProxy(new CardPayments(this.registry), Payments.class);
		Payments byClass = this.proxies.classProxy(new CardPayments(this.registry));
		assertThat(AopUtils.isJdkDynamicProxy(byInterface)).isTrue();
		assertThat(byInterface.audit().held()).containsExactly("CardPayments.audit");
		assertThat(byClass.audit().held()).containsExactly("CardPayments.audit");
	}

	@Test
	void keyNamesTheTargetMethodsParameterThroughAnInterfaceProxy() {
		Payments payments = this.proxies.interfaceProxy(new CardPayments(this.registry), Payments.class);
		assertThat(payments.refund(7).held()).containsExactly("refund:7");
	}

	@Test
	void methodSeesItsHoldInLockContextWhileItRuns() {
		LockLease lease = this.orders.ship().lease();
		assertThat(lease.name()).isEqualTo("shipping");
		assertThat(lease.fencingToken()).isOne();
		assertThat(lease.isValid()).as("valid once the call returned").isFalse();
		assertThat(LockContext.currentLease()).isEmpty();
	}

	@Test
	void lockHeldElsewhereFailsTheCallAfterItsWaitTimeWithoutRunningIt() {
		this.registry.acquire("order:7", Duration.ZERO);
		long start = System.nanoTime();
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> this.orders.pay(7))
			.withMessage("Lock 'order:7' of Orders.pay(long) was not acquired within PT0.1S");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
		assertThat(this.orders.runs()).isZero();
	}

	@Test
	void skippedCallReturnsNothingWithoutRunning() {
		NightlyJobs jobs = this.proxies.classProxy(new NightlyJobs());
		this.registry.acquire("nightly", Duration.ZERO);
		assertThat(jobs.report()).isEmpty();
		assertThat(jobs.count()).isNull();
		assertThat(jobs.names()).as("a collection, which is not made empty").isNull();
		jobs.clean();
		assertThat(jobs.runs()).isZero();
	}

	@Test
	void nestedCallTakingTheSameLockReentersIt() {
		List<Seen> innerThenOuter = this.orders.payThenSettle(5);
		assertThat(innerThenOuter).map(Seen::held).containsOnly(List.of("order:5"));
		assertThat(innerThenOuter).map((seen) -> seen.lease().fencingToken()).containsOnly(1L);
		assertThat(ListedHolds.names(this.registry)).isEmpty();
	}

	@Test
	void collectionKeyTakesEveryLockInSortedOrderAndReleasesThemAll() {
		Seen seen = this.orders.payAll(List.of("c", "a", "b"));
		assertThat(seen.held()).containsExactly("order:a", "order:b", "order:c");
		assertThat(seen.lease().name()).as("the lock taken last").isEqualTo("order:c");
		assertThat(ListedHolds.names(this.registry)).isEmpty();
	}

	@Test
	void collectionKeyWithALockHeldElsewhereReleasesTheLocksTakenBeforeIt() {
		this.registry.acquire("order:b", Duration.ZERO);
		assertThatExceptionOfType(LockAcquisitionException.class)
			.isThrownBy(() -> this.orders.payAll(List.of("c", "a", "b")));
		assertThat(ListedHolds.names(this.registry)).containsExactly("order:b");
		assertThat(nextFencingToken("order:a")).as("taken once, before 'order:b'").isEqualTo(2);
		assertThat(nextFencingToken("order:c")).as("never taken").isOne();
		assertThat(this.orders.runs()).isZero();
	}

	@Test
	void nullKeyFailsTheCallWithLockKeyExceptionAndLocksNothing() {
		assertThatExceptionOfType(LockKeyException.class).isThrownBy(() -> this.orders.payAll(Arrays.asList("a", null)))
			.withMessage("Lock key '#orderIds' of Orders.payAll(Collection) evaluated to null for one of its"
					+ " elements; the method was not run");
		assertThat(nextFencingToken("order:a")).as("never taken").isOne();
		assertThat(this.orders.runs()).isZero();
	}

	@Test
	void lockLostWhileTheMethodRanFailsTheCallAfterItWhenOnLostIsThrow() {
		assertThatExceptionOfType(LockLostException.class).isThrownBy(this.orders::shipAndLoseTheLock)
			.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("shipping"));
		assertThat(this.orders.runs()).isOne();
	}

	@Test
	void lockLostWhileTheMethodRanLeavesItsResultWhenOnLostIsLog() {
		Orders logging = new LockingProxies(this.registry, new LostLockPolicy(LockLostAction.LOG))
			.classProxy(new Orders(this.registry));
		assertThat(logging.shipAndLoseTheLock()).isEqualTo("shipped");
		assertThat(ListedHolds.names(this.registry)).isEmpty();
	}

	@Test
	void assertHeldPassesWhileEveryLockOfTheCallIsHeldAndThrowsOnceOneIsLost() {
		Orders logging = new LockingProxies(this.registry, new LostLockPolicy(LockLostAction.LOG))
			.classProxy(new Orders(this.registry));
		assertThat(logging.payAllCheckingTheLocks(List.of("b", "a"))).containsExactly("held", "lost order:b");
	}

	@Test
	void assertHeldOutsideALockedCallThrowsIllegalStateException() {
		assertThatIllegalStateException().isThrownBy(LockContext::assertHeld)
			.withMessageContaining("outside a @DistributedLock method");
	}

	@Test
	void methodsOwnExceptionPropagatesAndItsLockIsReleased() {
		assertThatIOException().isThrownBy(this.orders::failShipping).withMessage("carrier down");
		assertThat(nextFencingToken("shipping")).as("taken once, then released").isEqualTo(2);
	}

	@Test
	void methodsOwnExceptionWinsOverALostLockWhichItCarriesAsSuppressed() {
		assertThatIOException().isThrownBy(this.orders::loseTheLockThenFailShipping)
			.satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement().isInstanceOf(LockLostException.class));
	}

	private long nextFencingToken(String name) {
		try (LockLease lease = this.registry.acquire(name, Duration.ZERO)) {
			return lease.fencingToken();
		}
	}

	/**
	 * What a locked method saw while it ran.
	 *
	 * @param held the names held in the registry
	 * @param lease the lease in {@link LockContext}
	 */
	record Seen(List<String> held, LockLease lease) {

		static Seen now(InMemoryLockRegistry registry) {
			return new Seen(ListedHolds.names(registry), LockContext.currentLease().orElseThrow());
		}

	}

	/**
	 * Locked methods seeing what they hold, by name, by key and nested.
	 */
	static class Orders {

		private final AtomicInteger runs = new AtomicInteger();

		private final InMemoryLockRegistry registry;

		Orders(InMemoryLockRegistry registry) {
			this.registry = registry;
		}

		public int runs() {
			return this.runs.get();
		}

		@DistributedLock(name = "shipping")
		public Seen ship() {
			return seen();
		}

		@DistributedLock(name = "order", key = "#orderId", waitTime = "100ms")
		public Seen pay(long orderId) {
			return seen();
		}

		@DistributedLock(name = "order", key = "#orderId")
		public List<Seen> payThenSettle(long orderId) {
			Seen settled = ((Orders) AopContext.currentProxy()).settle(orderId);
			return List.of(settled, seen());
		}

		@DistributedLock(name = "order", key = "#orderId")
		public Seen settle(long orderId) {
			return seen();
		}

		@DistributedLock(name = "order", key = "#orderIds")
		public Seen payAll(Collection<String> orderIds) {
			return seen();
		}

		@DistributedLock(name = "order", key = "#orderIds")
		public List<String> payAllCheckingTheLocks(Collection<String> orderIds) {
			List<String> checks = new ArrayList<>();
			checks.add(checkHeld());
			ListedHolds.loseAll(this.registry);
			checks.add(checkHeld());
			return checks;
		}

		@DistributedLock(name = "shipping")
		public String shipAndLoseTheLock() {
			this.runs.incrementAndGet();
			ListedHolds.loseAll(this.registry);
			return "shipped";
		}

		@DistributedLock(name = "shipping")
		public void failShipping() throws IOException {
			throw new IOException("carrier down");
		}

		@DistributedLock(name = "shipping")
		public void loseTheLockThenFailShipping() throws IOException {
			ListedHolds.loseAll(this.registry);
			throw new IOException("carrier down");
		}

		private Seen seen() {
			this.runs.incrementAndGet();
			return Seen.now(this.registry);
		}

		private static String checkHeld() {
			try {
				LockContext.assertHeld();
				return "held";
			}
			catch (LockLostException ex) {
				return "lost " + ex.getLockName();
			}
		}

	}

	/**
	 * The interface through which a JDK proxy calls {@link CardPayments}, with other
	 * parameter names.
	 */
	interface Payments {

		Seen refund(long id);

		Seen audit();

	}

	/**
	 * Locked methods annotated on the class, not on its interface.
	 */
	static class CardPayments implements Payments {

		private final InMemoryLockRegistry registry;

		CardPayments(InMemoryLockRegistry registry) {
			this.registry = registry;
		}

		@Override
		@DistributedLock(name = "refund", key = "#refundId")
		public Seen refund(long refundId) {
			return Seen.now(this.registry);
		}

		@Override
		@DistributedLock
		public Seen audit() {
			return Seen.now(this.registry);
		}

	}

	/**
	 * Locked methods that are skipped when their lock is taken.
	 */
	static class NightlyJobs {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@DistributedLock(name = "nightly", onFailure = LockFailureAction.SKIP)
		public Optional<String> report() {
			return ran(Optional.of("report"));
		}

		@DistributedLock(name = "nightly", onFailure = LockFailureAction.SKIP)
		public Integer count() {
			return ran(1);
		}

		@DistributedLock(name = "nightly", onFailure = LockFailureAction.SKIP)
		public List<String> names() {
			return ran(List.of("report"));
		}

		@DistributedLock(name = "nightly", onFailure = LockFailureAction.SKIP)
		public void clean() {
			this.runs.incrementAndGet();
		}

		private <T> T ran(T result) {
			this.runs.incrementAndGet();
			return result;
		}

	}

}
