package dev.distlock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.DistributedLock;
import dev.distlock.LockFailureAction;
import dev.distlock.LockLostException;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A {@link DistributedLock} method whose result runs on after it returned, a
 * {@code CompletableFuture}, a {@code Mono} or a {@code Flux}, stops when its lock is
 * lost while the result runs: the result fails with {@link LockLostException} at once and
 * the method's own future or publisher is cancelled; a nested call on a lock found lost
 * fails with {@link LockLostException}. Against a real {@code redis-server}, where
 * another owner takes the key over or Redis stalls past the lease.
 */
@Timeout(60)
class LockLossInterceptionTests {

	private static final Duration WAIT = Duration.ofSeconds(5);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=500ms")
		.withUserConfiguration(ExportConfiguration.class);

	private final RedisLocks locks = new RedisLocks(redis.server());

	@AfterEach
	void resumeRedis() {
		redis.server().resume();
	}

	@Test
	void futureWhoseLockIsTakenOverFailsAtOnceAndCancelsTheMethodsFuture() {
		this.contextRunner.run((context) -> {
			CompletableFuture<String> pending = new CompletableFuture<>();
			CompletableFuture<String> result = context.getBean(Exports.class).export(pending);
			this.locks.takeOver(context, "lock:export");
			assertThat(result).failsWithin(WAIT)
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(LockLostException.class)
				.withMessageContaining("Lock 'export' was lost while held");
			await().atMost(WAIT).until(pending::isCancelled);
			assertThat(this.locks.get("lock:export")).isEqualTo("someone-else");
		});
	}

	@Test
	void monoWhoseLockIsTakenOverFailsAtOnceAndCancelsTheMethodsMono() {
		this.contextRunner.run((context) -> {
			AtomicBoolean cancelled = new AtomicBoolean();
			StepVerifier.create(context.getBean(Exports.class).watch(cancelled))
				.then(() -> await().atMost(WAIT).until(() -> this.locks.keys("lock:watch").size() == 1))
				.then(() -> this.locks.takeOver(context, "lock:watch"))
				.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(LockLostException.class)
					.hasMessageContaining("Lock 'watch' was lost while held"))
				.verify(WAIT);
			assertThat(cancelled).isTrue();
			assertThat(this.locks.get("lock:watch")).isEqualTo("someone-else");
		});
	}

	@Test
	void fluxWhoseRedisStallsPastItsLeaseFailsAfterWhatItEmittedAndCancelsTheMethodsFlux() {
		this.contextRunner.withPropertyValues("distlock.lease-time=1500ms").run((context) -> {
			AtomicBoolean cancelled = new AtomicBoolean();
			StepVerifier.create(context.getBean(Exports.class).feed(cancelled))
				.expectNextCount(3)
				.then(() -> redis.server().pause())
				.thenConsumeWhile((tick) -> true)
				.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(LockLostException.class)
					.hasMessageContaining("its renewal failed"))
				.verify(Duration.ofSeconds(10));
			redis.server().resume();
			assertThat(cancelled).isTrue();
		});
	}

	/**
	 * A nested call on a lock the outer call holds re-enters it; once the lock was found
	 * lost, the nested call fails with {@link LockLostException} rather than run as if it
	 * held the lock, even when it skips on failure, and so does the outer call.
	 */
	@Test
	void nestedCallOnALockFoundLostFailsWithLockLostExceptionEvenWhenItSkips() {
		this.contextRunner.run((context) -> {
			Exports exports = context.getBean(Exports.class);
			AtomicBoolean nestedRan = new AtomicBoolean();
			AtomicReference<Throwable> nestedFailure = new AtomicReference<>();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> exports.post(() -> {
				this.locks.takeOver(context, "lock:ledger");
				try {
					exports.reconcile(nestedRan);
				}
				catch (LockLostException ex) {
					nestedFailure.set(ex);
				}
			}));
			assertThat(nestedFailure.get()).isInstanceOf(LockLostException.class)
				.hasMessageContaining("Lock 'ledger'")
				.hasMessageContaining("it cannot be re-entered");
			assertThat(nestedRan).isFalse();
			assertThat(this.locks.get("lock:ledger")).isEqualTo("someone-else");
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class ExportConfiguration {

		@Bean
		Exports exports() {
			return new Exports();
		}

	}

	static class Exports {

		@DistributedLock(name = "export")
		public CompletableFuture<String> export(CompletableFuture<String> pending) {
			return pending;
		}

		@DistributedLock(name = "ledger")
		public void post(Runnable work) {
			work.run();
		}

		@DistributedLock(name = "ledger", onFailure = LockFailureAction.SKIP)
		public void reconcile(AtomicBoolean ran) {
			ran.set(true);
		}

		@DistributedLock(name = "watch")
		public Mono<String> watch(AtomicBoolean cancelled) {
			return Mono.<String>never().doOnCancel(() -> cancelled.set(true));
		}

		@DistributedLock(name = "feed")
		public Flux<Long> feed(AtomicBoolean cancelled) {
			return Flux.interval(Duration.ofMillis(20)).doOnCancel(() -> cancelled.set(true));
		}

	}

}
