package dev.distlock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import dev.distlock.DistributedLock;
import dev.distlock.DistributedLockException;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Releasing the locks of an intercepted call when Redis does not answer: every lock of
 * the call is released whatever happens to one of them, and the caller learns of the
 * failure. Redis is frozen with {@code SIGSTOP} while the call releases, also after the
 * caller's transaction; the command timeout is short.
 */
@Timeout(60)
class InterceptedReleaseTests {

	private static final List<String> BATCH_LOCKS = List.of("batch:1", "batch:2", "batch:3");

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=500ms", "distlock.lease-time=3s")
		.withUserConfiguration(BatchConfiguration.class);

	@Test
	void releaseStalledByRedisFailsTheCallAfterReleasingEveryLockOfIt() {
		this.contextRunner.run((context) -> {
			BatchService batches = context.getBean(BatchService.class);
			try {
				assertThatExceptionOfType(DistributedLockException.class)
					.isThrownBy(() -> batches.processThenFreezeRedis(List.of(1, 2, 3)));
			}
			finally {
				redis.server().resume();
			}
			assertEveryBatchLockReleased(context);
		});
	}

	@Test
	void methodFailureWinsOverAStalledReleaseWhichItCarriesAsSuppressed() {
		this.contextRunner.run((context) -> {
			BatchService batches = context.getBean(BatchService.class);
			try {
				assertThatExceptionOfType(IllegalStateException.class)
					.isThrownBy(() -> batches.freezeRedisThenFail(List.of(1, 2, 3)))
					.withMessage("batch failed")
					.satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement()
						.isInstanceOf(DistributedLockException.class));
			}
			finally {
				redis.server().resume();
			}
			assertEveryBatchLockReleased(context);
		});
	}

	@Test
	void releaseDeferredToTheCallersCommitReleasesEveryLockWhenRedisStalls() {
		this.contextRunner.withBean(PlatformTransactionManager.class, InterceptedReleaseTests::transactionManager)
			.run((context) -> {
				BatchService batches = context.getBean(BatchService.class);
				TransactionTemplate transaction = new TransactionTemplate(
						context.getBean(PlatformTransactionManager.class));
				try {
					Integer processed = transaction
						.execute((status) -> batches.processThenFreezeRedis(List.of(1, 2, 3)));
					assertThat(processed).isEqualTo(3);
				}
				finally {
					redis.server().resume();
				}
				assertEveryBatchLockReleased(context);
			});
	}

	@Test
	void interruptLeftSetByTheMethodNeitherFailsNorHaltsTheReleaseAndStaysSet() {
		this.contextRunner.run((context) -> {
			BatchService batches = context.getBean(BatchService.class);
			try {
				assertThat(batches.processThenInterrupt(List.of(1, 2, 3))).isEqualTo(3);
				assertThat(Thread.currentThread().isInterrupted()).isTrue();
			}
			finally {
				Thread.interrupted();
			}
			assertEveryBatchLockReleased(context);
			assertThat(redisKeys("lock:batch:*")).isEmpty();
		});
	}

	@Test
	void futureResultCompletesWithTheReleaseFailureWhenRedisStallsAsItCompletes() {
		this.contextRunner.run((context) -> {
			BatchService batches = context.getBean(BatchService.class);
			CompletableFuture<String> pending = new CompletableFuture<>();
			CompletableFuture<String> result = batches.later(pending);
			redis.server().pause();
			try {
				pending.complete("done");
				assertThat(result).failsWithin(Duration.ofSeconds(5))
					.withThrowableOfType(ExecutionException.class)
					.withCauseInstanceOf(DistributedLockException.class);
			}
			finally {
				redis.server().resume();
			}
			assertThat(context.getBean(RedisLockRegistry.class).heldLocks()).isEmpty();
		});
	}

	private static void assertEveryBatchLockReleased(AssertableApplicationContext context) {
		RedisLockRegistry registry = context.getBean(RedisLockRegistry.class);
		assertThat(registry.heldLocks()).isEmpty();
		assertThat(BATCH_LOCKS).noneMatch((name) -> registry.obtain(name).isHeldByCurrentThread());
		await().atMost(Duration.ofSeconds(10)).until(() -> redisKeys("lock:batch:*").isEmpty());
	}

	private static PlatformTransactionManager transactionManager() {
		return new DataSourceTransactionManager(
				new SimpleDriverDataSource(new org.h2.Driver(), "jdbc:h2:mem:release-" + System.nanoTime()));
	}

	private static List<String> redisKeys(String pattern) {
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))) {
			return client.sync().keys(pattern);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class BatchConfiguration {

		@Bean
		BatchService batchService() {
			return new BatchService();
		}

	}

	static class BatchService {

		@DistributedLock(name = "batch", key = "#ids")
		public int processThenFreezeRedis(List<Integer> ids) {
			redis.server().pause();
			return ids.size();
		}

		@DistributedLock(name = "batch", key = "#ids")
		public int freezeRedisThenFail(List<Integer> ids) {
			redis.server().pause();
			throw new IllegalStateException("batch failed");
		}

		@DistributedLock(name = "batch", key = "#ids")
		public int processThenInterrupt(List<Integer> ids) {
			Thread.currentThread().interrupt();
			return ids.size();
		}

		@DistributedLock(name = "batch:later")
		public CompletableFuture<String> later(CompletableFuture<String> pending) {
			return pending;
		}

	}

}
