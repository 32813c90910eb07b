package dev.distlock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedLock;
import dev.distlock.LockKeyException;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link DistributedLock} method returning a {@code Mono}, a {@code Flux} or a
 * {@code CompletableFuture} whose key evaluates to nothing usable returns the
 * {@link LockKeyException} in its result rather than throwing it, without locking
 * anything or running the method.
 */
@Timeout(60)
class AsyncKeyFailureTests {

	private static final String NULL_KEY_MESSAGE = "Lock key '#id' of KeyedService.%s(String) evaluated to null;"
			+ " the method was not run";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=2s", "distlock.lease-time=3s")
		.withBean(KeyedService.class);

	@Test
	void monoWithANullKeyIsAnErrorOfTheMono() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			verifyNullKeyError(service.mono(null), "mono");
			assertNothingLockedOrRun(service);
		});
	}

	@Test
	void fluxWithANullKeyIsAnErrorOfTheFlux() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			verifyNullKeyError(service.flux(null), "flux");
			assertNothingLockedOrRun(service);
		});
	}

	@Test
	void futureWithANullKeyCompletesExceptionally() {
		this.contextRunner.run((context) -> {
			KeyedService service = context.getBean(KeyedService.class);
			CompletableFuture<String> result = service.future(null);
			assertThat(result).failsWithin(Duration.ofSeconds(10))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(LockKeyException.class)
				.withMessage(NULL_KEY_MESSAGE.formatted("future"));
			assertNothingLockedOrRun(service);
		});
	}

	private static void verifyNullKeyError(Publisher<String> result, String method) {
		StepVerifier.create(result)
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(LockKeyException.class)
				.hasMessage(NULL_KEY_MESSAGE.formatted(method)))
			.verify(Duration.ofSeconds(10));
	}

	private static void assertNothingLockedOrRun(KeyedService service) {
		assertThat(service.calls()).hasValue(0);
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))) {
			assertThat(client.sync().keys("lock:*")).isEmpty();
		}
	}

	static class KeyedService {

		private final AtomicInteger calls = new AtomicInteger();

		@DistributedLock(name = "item", key = "#id")
		public Mono<String> mono(String id) {
			this.calls.incrementAndGet();
			return Mono.just(id);
		}

		@DistributedLock(name = "item", key = "#id")
		public Flux<String> flux(String id) {
			this.calls.incrementAndGet();
			return Flux.just(id);
		}

		@DistributedLock(name = "item", key = "#id")
		public CompletableFuture<String> future(String id) {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture(id);
		}

		AtomicInteger calls() {
			return this.calls;
		}

	}

}
