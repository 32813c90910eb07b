package dev.distlock.aop;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.DistributedLock;
import dev.distlock.DistributedLockException;
import dev.distlock.LockFailureAction;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Annotated methods while {@code redis-server} is stopped and after it is back: a method
 * with {@code onFailure = SKIP} is skipped as when its lock is busy, and the outage is
 * logged once when it starts and once when it ends; a method that throws still throws.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class RedisOutageTests {

	private static final String OUTAGE = "Redis is unreachable; @DistributedLock methods with onFailure = SKIP are "
			+ "skipped until it answers: ";

	private static final String RECOVERY = "Redis answers again; @DistributedLock methods with onFailure = SKIP "
			+ "run again";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=300ms")
		.withUserConfiguration(JobsConfiguration.class);

	@Test
	void skipsWhileRedisIsDownLoggingTheOutageOnceAndRunsAgainOnceItAnswers(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThat(jobs.report()).contains("report 1");
			redis.server().stop();
			for (int i = 0; i < 3; i++) {
				assertThat(jobs.report()).isEmpty();
				assertThat(jobs.reportLater()).isCompletedWithValue(null);
				assertThat(jobs.reactiveReport().blockOptional()).isEmpty();
			}
			assertThat(jobs.runs()).isOne();
			assertThat(output).containsOnlyOnce(OUTAGE + "Redis did not answer within PT0.3S")
				.doesNotContain(RECOVERY)
				.doesNotContain("\tat ");
			redis.server().restart();
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(jobs.report()).isPresent());
			assertThat(jobs.report()).isPresent();
			assertThat(jobs.reactiveReport().blockOptional()).isPresent();
			assertThat(output).containsOnlyOnce(OUTAGE).containsOnlyOnce(RECOVERY).doesNotContain("\tat ");
		});
	}

	@Test
	void throwsWhileRedisIsDownWhenTheMethodThrows(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			redis.server().stop();
			assertThatExceptionOfType(DistributedLockException.class).isThrownBy(jobs::pay)
				.satisfies((ex) -> assertThat(ex).isExactlyInstanceOf(DistributedLockException.class));
			assertThat(jobs.runs()).isZero();
			assertThat(output).doesNotContain(OUTAGE);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class JobsConfiguration {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	static class Jobs {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@DistributedLock(name = "report", onFailure = LockFailureAction.SKIP)
		public Optional<String> report() {
			return Optional.of("report " + this.runs.incrementAndGet());
		}

		@DistributedLock(name = "report", onFailure = LockFailureAction.SKIP)
		public CompletableFuture<String> reportLater() {
			return CompletableFuture.completedFuture("report " + this.runs.incrementAndGet());
		}

		@DistributedLock(name = "report", onFailure = LockFailureAction.SKIP)
		public Mono<String> reactiveReport() {
			return Mono.fromSupplier(() -> "report " + this.runs.incrementAndGet());
		}

		@DistributedLock(name = "payment")
		public void pay() {
			this.runs.incrementAndGet();
		}

	}

}
