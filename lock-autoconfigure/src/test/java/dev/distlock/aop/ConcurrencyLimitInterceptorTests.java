package dev.distlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedConcurrencyLimit;
import dev.distlock.DistributedSemaphore;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockContext;
import dev.distlock.LockFailureAction;
import dev.distlock.LockIntrospector;
import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Behaviour of {@link DistributedConcurrencyLimit} methods in a Spring context against a
 * real {@code redis-server}: at most the limit of calls run at once from many threads,
 * calls beyond it fail or skip, and futures and reactive results keep their permit until
 * they complete. {@link ConcurrencyLimitInterceptionRulesTests} checks the rules over an
 * in-memory registry.
 */
@Timeout(60)
class ConcurrencyLimitInterceptorTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = RedisInterceptionContexts.on(redis.server())
		.withPropertyValues("exports.limit=3")
		.withBean(Exports.class);

	@Test
	void atMostTheLimitOfCallsRunAtOnceFromManyThreads() {
		this.contextRunner.run((context) -> {
			Exports exports = context.getBean(Exports.class);
			ExecutorService pool = Executors.newFixedThreadPool(12);
			try {
				List<CompletableFuture<Void>> callers = new ArrayList<>();
				for (int caller = 0; caller < 12; caller++) {
					callers.add(CompletableFuture.runAsync(() -> {
						for (int call = 0; call < 5; call++) {
							exports.export();
						}
					}, pool));
				}
				assertThat(CompletableFuture.allOf(callers.toArray(CompletableFuture[]::new)))
					.succeedsWithin(Duration.ofSeconds(40));
			}
			finally {
				pool.shutdownNow();
			}
			assertThat(exports.calls()).hasValue(60);
			assertThat(exports.mostAtOnce()).as("the limit, reached and never passed").hasValue(3);
			assertThat(exports.running()).hasValue(0);
		});
	}

	@Test
	void callsBeyondTheLimitFailOrSkipWhileAnotherProcessHoldsEveryPermit() {
		this.contextRunner.run((context) -> {
			Exports exports = context.getBean(Exports.class);
			try (TestLockRegistry rival = RedisInterceptionContexts.rival(redis.server())) {
				DistributedSemaphore semaphore = rival.registry().semaphore("exports", 3);
				List<LockLease> permits = List.of(semaphore.acquire(Duration.ZERO), semaphore.acquire(Duration.ZERO),
						semaphore.acquire(Duration.ZERO));
				assertThat(exports.exportOrSkip()).isEmpty();
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(exports::exportAtOnce)
					.withMessage("A permit of semaphore 'exports' (limit 3) of Exports.exportAtOnce() was not acquired"
							+ " within PT0S");
				permits.get(0).release();
				assertThat(exports.exportOrSkip()).isPresent();
				assertThat(exports.calls()).hasValue(1);
			}
		});
	}

	@Test
	void callRunsWithItsPermitAsItsLeaseListedAsAPermitWhileHeld() {
		this.contextRunner.run((context) -> {
			Exports exports = context.getBean(Exports.class);
			LockIntrospector introspector = (LockIntrospector) context.getBean(LockRegistry.class);
			assertThat(exports.heldWhileRunning(introspector)).isEqualTo("exports:permit");
			assertThat(introspector.heldLocks()).isEmpty();
		});
	}

	@Test
	void futureKeepsItsPermitUntilItCompletes() {
		this.contextRunner.run((context) -> {
			Exports exports = context.getBean(Exports.class);
			CompletableFuture<String> pending = new CompletableFuture<>();
			CompletableFuture<String> result = exports.exportLater(pending);
			assertThat(exports.exportLater(CompletableFuture.completedFuture("skipped?"))).succeedsWithin(WAIT)
				.isNull();
			pending.complete("done");
			assertThat(result).succeedsWithin(WAIT).isEqualTo("done");
			assertThat(exports.exportLater(CompletableFuture.completedFuture("again"))).succeedsWithin(WAIT)
				.isEqualTo("again");
		});
	}

	@Test
	void monoKeepsItsPermitUntilItCompletes() {
		this.contextRunner.run((context) -> {
			Exports exports = context.getBean(Exports.class);
			LockIntrospector introspector = (LockIntrospector) context.getBean(LockRegistry.class);
			Sinks.One<String> pending = Sinks.one();
			CompletableFuture<String> result = exports.exportReactively(pending.asMono()).toFuture();
			await().atMost(WAIT).until(() -> !introspector.heldLocks().isEmpty());
			assertThat(exports.exportReactively(Mono.just("skipped?")).blockOptional(WAIT)).isEmpty();
			pending.tryEmitValue("done");
			assertThat(result).succeedsWithin(WAIT).isEqualTo("done");
			assertThat(exports.exportReactively(Mono.just("again")).blockOptional(WAIT)).contains("again");
		});
	}

	/**
	 * Limited methods that count how many of their calls run at once.
	 */
	static class Exports {

		private final AtomicInteger calls = new AtomicInteger();

		private final AtomicInteger running = new AtomicInteger();

		private final AtomicInteger mostAtOnce = new AtomicInteger();

		AtomicInteger calls() {
			return this.calls;
		}

		AtomicInteger running() {
			return this.running;
		}

		AtomicInteger mostAtOnce() {
			return this.mostAtOnce;
		}

		@DistributedConcurrencyLimit(name = "exports", limit = "${exports.limit}", waitTime = "20s")
		public void export() {
			int now = this.running.incrementAndGet();
			this.mostAtOnce.accumulateAndGet(now, Math::max);
			try {
				this.calls.incrementAndGet();
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.running.decrementAndGet();
			}
		}

		@DistributedConcurrencyLimit(name = "exports", limit = "${exports.limit}", onFailure = LockFailureAction.SKIP)
		public Optional<String> exportOrSkip() {
			this.calls.incrementAndGet();
			return Optional.of("exported");
		}

		@DistributedConcurrencyLimit(name = "exports", limit = "${exports.limit}")
		public void exportAtOnce() {
			this.calls.incrementAndGet();
		}

		@DistributedConcurrencyLimit(name = "exports", limit = "${exports.limit}")
		public String heldWhileRunning(LockIntrospector introspector) {
			return ListedHolds.currentLeaseAsListed(introspector);
		}

		@DistributedConcurrencyLimit(name = "later", limit = "1", onFailure = LockFailureAction.SKIP)
		public CompletableFuture<String> exportLater(CompletableFuture<String> pending) {
			return pending;
		}

		@DistributedConcurrencyLimit(name = "reactive", limit = "1", onFailure = LockFailureAction.SKIP)
		public Mono<String> exportReactively(Mono<String> pending) {
			return pending;
		}

	}

}
