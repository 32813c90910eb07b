package dev.distlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedConcurrencyLimit;
import dev.distlock.DistributedLock;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockContext;
import dev.distlock.LockFailureAction;
import dev.distlock.LockLease;
import dev.distlock.LockLostAction;
import dev.distlock.test.InMemoryLockRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import org.springframework.aop.framework.AopContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The rules by which {@link DistributedConcurrencyLimit} methods hold a permit, checked
 * on proxies over an {@link InMemoryLockRegistry}: which semaphore a call takes a permit
 * of, what it does when none is left, how futures and reactive results keep theirs, and
 * the order of a permit and a lock on one method.
 * {@link ConcurrencyLimitInterceptorTests} checks the limit across threads against real
 * Redis.
 */
@Timeout(10)
class ConcurrencyLimitInterceptionRulesTests {

	private static final Duration WAIT = Duration.ofSeconds(5);

	private final InMemoryLockRegistry registry = new InMemoryLockRegistry();

	private final LockingProxies proxies = new LockingProxies(this.registry, new LostLockPolicy(LockLostAction.THROW));

	private final Exports exports = this.proxies.classProxy(new Exports());

	@Test
	void callRunsHoldingAPermitOfTheSemaphoreOfItsNameWhichIsItsLease() {
		LockLease lease = this.exports.export();
		assertThat(lease.name()).isEqualTo("exports");
		assertThat(lease.isValid()).as("given back once the call returned").isFalse();
		assertThat(this.registry.semaphore("exports", 2).tryAcquire(Duration.ZERO)).isPresent();
	}

	@Test
	void callsBeyondTheLimitFailAfterTheWaitTimeWithoutRunning() {
		takePermits("exports", 2, 2);
		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(this.exports::export)
			.withMessage("A permit of semaphore 'exports' (limit 2) of Exports.export() was not acquired within"
					+ " PT0.1S");
		assertThat(this.exports.runs()).hasValue(0);
	}

	@Test
	void callsWithinTheLimitRunWhilePermitsAreLeft() {
		takePermits("exports", 2, 1);
		assertThat(this.exports.export().name()).isEqualTo("exports");
	}

	@Test
	void keyGivesEachValueASemaphoreOfItsOwn() {
		takePermits("report:eu", 1, 1);
		assertThat(this.exports.report("us")).isEqualTo("report:us");
		assertThat(this.exports.reportOrSkip("eu")).as("skipped: the only permit of report:eu is taken").isEmpty();
		assertThat(this.exports.runs()).hasValue(1);
	}

	@Test
	void nestedCallTakesAPermitOfItsOwn() {
		assertThat(this.exports.reportTwiceNested("eu")).containsExactly("report:eu", "report:eu");
		assertThat(this.exports.reportOrSkipNested("us")).as("the outer call holds the only permit").isEmpty();
	}

	@Test
	void permitIsTakenBeforeTheLockOfTheSameMethod() {
		List<String> leases = this.exports.exportLocked();
		assertThat(leases).as("the innermost first").containsExactly("export-lock", "exports");
	}

	@Test
	void futureResultHoldsItsPermitUntilItCompletes() {
		CompletableFuture<String> pending = new CompletableFuture<>();
		CompletableFuture<String> result = this.exports.exportLater(pending);
		assertThat(this.exports.exportLaterOrSkip(new CompletableFuture<>())).isCompletedWithValue(null);
		pending.complete("done");
		assertThat(result).succeedsWithin(WAIT).isEqualTo("done");
		assertThat(this.exports.exportLaterOrSkip(CompletableFuture.completedFuture("again"))).succeedsWithin(WAIT)
			.isEqualTo("again");
	}

	@Test
	void reactiveResultHoldsItsPermitUntilItCompletes() {
		Sinks.One<String> pending = Sinks.one();
		StepVerifier.create(this.exports.exportReactively(pending.asMono()))
			.then(() -> await().atMost(WAIT).until(() -> ListedHolds.names(this.registry).contains("reactive")))
			.then(() -> StepVerifier.create(this.exports.exportReactivelyOrSkip(Mono.just("skipped?")))
				.expectComplete()
				.verify(WAIT))
			.then(() -> pending.tryEmitValue("done"))
			.expectNext("done")
			.expectComplete()
			.verify(WAIT);
		StepVerifier.create(this.exports.exportReactivelyOrSkip(Mono.just("again")))
			.expectNext("again")
			.expectComplete()
			.verify(WAIT);
	}

	private void takePermits(String name, int limit, int count) {
		for (int i = 0; i < count; i++) {
			this.registry.semaphore(name, limit).acquire(Duration.ZERO);
		}
	}

	/**
	 * Methods limited by name, by key, nested, together with a lock, and completing
	 * later.
	 */
	static class Exports {

		private final AtomicInteger runs = new AtomicInteger();

		AtomicInteger runs() {
			return this.runs;
		}

		@DistributedConcurrencyLimit(name = "exports", limit = "2", waitTime = "100ms")
		public LockLease export() {
			this.runs.incrementAndGet();
			return LockContext.currentLease().orElseThrow();
		}

		@DistributedConcurrencyLimit(name = "report", key = "#region", limit = "1")
		public String report(String region) {
			this.runs.incrementAndGet();
			return LockContext.currentLease().orElseThrow().name();
		}

		@DistributedConcurrencyLimit(name = "report", key = "#region", limit = "1", onFailure = LockFailureAction.SKIP)
		public Optional<String> reportOrSkip(String region) {
			this.runs.incrementAndGet();
			return Optional.of(LockContext.currentLease().orElseThrow().name());
		}

		@DistributedConcurrencyLimit(name = "report", key = "#region", limit = "2")
		public List<String> reportTwiceNested(String region) {
			return List.of(LockContext.currentLease().orElseThrow().name(), self().innerReport(region));
		}

		@DistributedConcurrencyLimit(name = "report", key = "#region", limit = "2")
		public String innerReport(String region) {
			return LockContext.currentLease().orElseThrow().name();
		}

		@DistributedConcurrencyLimit(name = "report", key = "#region", limit = "1")
		public Optional<String> reportOrSkipNested(String region) {
			return self().reportOrSkip(region);
		}

		@DistributedConcurrencyLimit(name = "exports", limit = "2")
		@DistributedLock(name = "export-lock")
		public List<String> exportLocked() {
			return LockContext.leases().stream().map(LockLease::name).toList();
		}

		@DistributedConcurrencyLimit(name = "later", limit = "1")
		public CompletableFuture<String> exportLater(CompletableFuture<String> pending) {
			return pending;
		}

		@DistributedConcurrencyLimit(name = "later", limit = "1", onFailure = LockFailureAction.SKIP)
		public CompletableFuture<String> exportLaterOrSkip(CompletableFuture<String> pending) {
			return pending;
		}

		@DistributedConcurrencyLimit(name = "reactive", limit = "1")
		public Mono<String> exportReactively(Mono<String> pending) {
			return pending;
		}

		@DistributedConcurrencyLimit(name = "reactive", limit = "1", onFailure = LockFailureAction.SKIP)
		public Mono<String> exportReactivelyOrSkip(Mono<String> pending) {
			return pending;
		}

		private static Exports self() {
			return (Exports) AopContext.currentProxy();
		}

	}

}
