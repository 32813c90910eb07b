package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

import dev.distlock.DistributedLock;
import dev.distlock.DistributedLockException;
import dev.distlock.DistributedSemaphore;
import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockFailureAction;
import dev.distlock.LockLease;
import dev.distlock.LockLostAction;
import dev.distlock.LockRegistry;
import dev.distlock.aop.DistLockAdvisor;
import dev.distlock.aop.DistLockInterception;
import dev.distlock.aop.ResolvedLockSpecs;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport.ConditionAndOutcomes;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.dao.DataAccessException;
import org.springframework.context.annotation.Primary;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DistLockAutoConfiguration} on Spring Boot's Redis auto-configuration
 * and a real {@code redis-server}.
 */
class DistLockAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s");

	@Test
	@Timeout(30)
	void providesRedisLockRegistryAdvisorAndValidator() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(LockRegistry.class)
			.hasBean("distlockAdvisor")
			.hasSingleBean(DistLockInterception.class)
			.hasSingleBean(DistLockProperties.class)
			.getBean(LockRegistry.class)
			.isInstanceOf(RedisLockRegistry.class));
	}

	@Test
	@Timeout(30)
	void ordersTheAdvisorBeforeTheTransactionAdvisorByDefault() {
		this.contextRunner
			.run((context) -> assertThat(context.getBean("distlockAdvisor", DistLockAdvisor.class).getOrder())
				.isEqualTo(Ordered.LOWEST_PRECEDENCE - 100)
				.isLessThan(Ordered.LOWEST_PRECEDENCE));
	}

	@Test
	@Timeout(30)
	void disabledPropertyRemovesEveryBeanAndTheProxying() {
		this.contextRunner.withPropertyValues("distlock.enabled=false")
			.withUserConfiguration(ReportConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(RedisConnectionFactory.class)
					.doesNotHaveBean(LockRegistry.class)
					.doesNotHaveBean(DistLockAdvisor.class)
					.doesNotHaveBean(DistLockInterception.class)
					.doesNotHaveBean(DistLockProperties.class);
				assertThat(AopUtils.isAopProxy(context.getBean(ReportService.class))).isFalse();
			});
	}

	@Test
	@Timeout(30)
	void inMemoryStoreWithoutDistlockTestFailsTheStartupInsteadOfLockingOnRedis() {
		this.contextRunner.withPropertyValues("distlock.store=in-memory")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(IllegalStateException.class)
				.hasMessage("distlock.store=in-memory keeps locks in the JVM, which needs dev.distlock:distlock-test "
						+ "on the classpath (a test-scoped dependency); remove the property to lock on Redis"));
	}

	@Test
	void backsOffWithoutRedisConnectionFactoryAndReportsWhy() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistLockAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(LockRegistry.class)
					.doesNotHaveBean(DistLockAdvisor.class)
					.doesNotHaveBean(DistLockInterception.class);
				ConditionAndOutcomes outcomes = ConditionEvaluationReport.get(context.getBeanFactory())
					.getConditionAndOutcomesBySource()
					.get(DistLockAutoConfiguration.class.getName());
				assertThat(outcomes).isNotNull();
				assertThat(outcomes.isFullMatch()).isFalse();
				assertThat(outcomes).filteredOn((outcome) -> !outcome.getOutcome().isMatch())
					.singleElement()
					.satisfies((outcome) -> assertThat(outcome.getOutcome().getMessage()).contains("@ConditionalOnBean")
						.contains("RedisConnectionFactory")
						.contains("did not find any beans"));
			});
	}

	@Test
	@Timeout(30)
	void locksThroughJedisWhenLettuceIsAbsent() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.lettuce")).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(JedisConnectionFactory.class).hasBean("distlockAdvisor");
			LockRegistry registry = context.getBean(LockRegistry.class);
			try (LockLease lease = registry.acquire("jedis", Duration.ZERO)) {
				assertThat(registry.tryAcquire("jedis", Duration.ZERO)).isEmpty();
				assertThat(lease.fencingToken()).isPositive();
			}
			assertThat(registry.tryAcquire("jedis", Duration.ofSeconds(1))).isPresent();
		});
	}

	@Test
	@Timeout(30)
	void locksThroughSpringDataRedisOnAConnectionFactoryOfTheApplicationsOwn() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DistLockAutoConfiguration.class, DistLockInterceptionAutoConfiguration.class))
			.withUserConfiguration(WrappedConnectionFactoryConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean("distlockAdvisor");
				assertExcludes(context.getBean(LockRegistry.class), "wrapped");
			});
	}

	private static void assertExcludes(LockRegistry registry, String name) {
		try (LockLease lease = registry.acquire(name, Duration.ZERO)) {
			assertThat(registry.tryAcquire(name, Duration.ZERO)).isEmpty();
			assertThat(lease.fencingToken()).isPositive();
		}
		assertThat(registry.tryAcquire(name, Duration.ofSeconds(1))).isPresent();
	}

	@Test
	@Timeout(30)
	void backsOffWhenUserDefinesLockRegistry() {
		this.contextRunner.withUserConfiguration(UserLockRegistryConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(LockRegistry.class)
				.doesNotHaveBean(RedisLockRegistry.class)
				.hasBean("distlockAdvisor")
				.hasSingleBean(DistLockInterception.class)
				.getBean(LockRegistry.class)
				.isInstanceOf(UnusableLockRegistry.class));
	}

	@Test
	@Timeout(30)
	void bindsEveryProperty() {
		this.contextRunner
			.withPropertyValues("distlock.key-prefix=app:locks:", "distlock.wait-time=2s", "distlock.lease-time=20s",
					"distlock.on-failure=skip", "distlock.on-lost=log", "distlock.order=42",
					"distlock.max-keys-per-call=250", "distlock.redis.replicas-to-ack=2",
					"distlock.redis.replica-ack-timeout=250ms")
			.withUserConfiguration(ArchiveConfiguration.class)
			.run((context) -> {
				DistLockProperties properties = context.getBean(DistLockProperties.class);
				assertThat(properties.isEnabled()).isTrue();
				assertThat(properties.getKeyPrefix()).isEqualTo("app:locks:");
				assertThat(properties.getWaitTime()).isEqualTo(Duration.ofSeconds(2));
				assertThat(properties.getLeaseTime()).isEqualTo(Duration.ofSeconds(20));
				assertThat(properties.getOnFailure()).isEqualTo(LockFailureAction.SKIP);
				assertThat(properties.getOnLost()).isEqualTo(LockLostAction.LOG);
				assertThat(properties.getOrder()).isEqualTo(42);
				assertThat(properties.getMaxKeysPerCall()).isEqualTo(250);
				assertThat(properties.getRedis().getReplicasToAck()).isEqualTo(2);
				assertThat(properties.getRedis().getReplicaAckTimeout()).isEqualTo(Duration.ofMillis(250));
				assertThat(context.getBean("distlockAdvisor", DistLockAdvisor.class).getOrder()).isEqualTo(42);
				ResolvedLockSpecs spec = ResolvedLockSpecs.ofLock(context,
						ReflectionUtils.findMethod(ArchiveService.class, "archive", String.class),
						ArchiveService.class);
				assertThat(spec.waitTime()).isEqualTo(Duration.ofSeconds(2));
				assertThat(spec.skipOnFailure()).isTrue();
			});
	}

	@Test
	@Timeout(30)
	void registryTakesLocksUnderTheConfiguredKeyPrefixAndLeaseTime() {
		this.contextRunner.withPropertyValues("distlock.key-prefix=app:locks:", "distlock.lease-time=20s")
			.run((context) -> {
				LockRegistry registry = context.getBean(LockRegistry.class);
				try (RedisTestClient client = connect(); LockLease lease = registry.acquire("invoice", Duration.ZERO)) {
					assertThat(client.sync().exists("app:locks:invoice")).isOne();
					assertThat(client.sync().exists("lock:invoice")).isZero();
					assertThat(client.sync().pttl("app:locks:invoice")).isBetween(10_000L, 20_000L);
				}
			});
	}

	@Test
	@Timeout(30)
	void registryWaitsForTheConfiguredNumberOfReplicas() {
		this.contextRunner
			.withPropertyValues("distlock.redis.replicas-to-ack=1", "distlock.redis.replica-ack-timeout=50ms")
			.run((context) -> {
				LockRegistry registry = context.getBean(LockRegistry.class);
				assertThatExceptionOfType(DistributedLockException.class)
					.isThrownBy(() -> registry.acquire("invoice", Duration.ZERO))
					.withMessageContaining("0 of 1 replicas")
					.withMessageContaining("distlock.redis.replicas-to-ack");
				try (RedisTestClient client = connect()) {
					await().atMost(Duration.ofSeconds(5))
						.untilAsserted(() -> assertThat(client.sync().exists("lock:invoice")).isZero());
				}
			});
	}

	@Test
	void negativeLeaseTimeFailsWithClearMessage() {
		this.contextRunner.withPropertyValues("distlock.lease-time=-1s").run((context) -> {
			assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Unable to set value for property lease-time")
				.rootCause()
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("must be at least 3ms")
				.hasMessageContaining("PT-1S");
		});
	}

	@Test
	void keyPrefixWithAnExclamationMarkFailsWithClearMessage() {
		this.contextRunner.withPropertyValues("distlock.key-prefix=lock!").run((context) -> {
			assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessage("Key prefix 'lock!' contains '!', which is reserved for distlock's helper keys");
		});
	}

	@Test
	@Timeout(30)
	void maxKeysPerCallThatIsNotPositiveFailsWithClearMessage() {
		this.contextRunner.withPropertyValues("distlock.max-keys-per-call=0").run((context) -> {
			assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Unable to set value for property max-keys-per-call")
				.rootCause()
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessage("must be positive, was 0");
		});
	}

	@Test
	void unknownFailureActionFailsWithClearMessage() {
		this.contextRunner.withPropertyValues("distlock.on-failure=maybe").run((context) -> {
			assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining(
						BindException.class.getName() + ": Failed to bind properties under 'distlock.on-failure'")
				.rootCause()
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("No enum constant")
				.hasMessageContaining("maybe");
		});
	}

	@Test
	void failureActionDefaultIsNoPropertyValue() {
		this.contextRunner.withPropertyValues("distlock.on-failure=default").run((context) -> {
			assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Unable to set value for property on-failure")
				.rootCause()
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessage("must be throw or skip, was default");
		});
	}

	@Test
	@Timeout(30)
	void annotatedMethodIsProxiedAndHoldsTheLockInRedis() {
		this.contextRunner.withUserConfiguration(ReportConfiguration.class).run((context) -> {
			ReportService service = context.getBean(ReportService.class);
			assertThat(AopUtils.isAopProxy(service)).isTrue();
			try (RedisTestClient client = connect()) {
				long heldDuringCall = service.generate("2024-05-01",
						() -> client.sync().exists("lock:report:2024-05-01"));
				assertThat(heldDuringCall).isOne();
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(client.sync().exists("lock:report:2024-05-01")).isZero());
			}
		});
	}

	private static RedisTestClient connect() {
		return RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5));
	}

	@Configuration(proxyBeanMethods = false)
	static class ReportConfiguration {

		@Bean
		ReportService reportService() {
			return new ReportService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ArchiveConfiguration {

		@Bean
		ArchiveService archiveService() {
			return new ArchiveService();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WrappedConnectionFactoryConfiguration {

		/**
		 * A factory of the application's own that hands out the connections of a Jedis
		 * factory: a wrapper, as a routing or instrumenting factory would be.
		 */
		@Bean(destroyMethod = "destroy")
		JedisConnectionFactory jedisConnectionFactory() {
			JedisConnectionFactory jedis = new JedisConnectionFactory(
					new RedisStandaloneConfiguration("127.0.0.1", redis.server().port()));
			jedis.afterPropertiesSet();
			jedis.start();
			return jedis;
		}

		@Bean
		@Primary
		RedisConnectionFactory wrappedConnectionFactory(JedisConnectionFactory jedis) {
			return new RedisConnectionFactory() {

				@Override
				public RedisConnection getConnection() {
					return jedis.getConnection();
				}

				@Override
				public RedisClusterConnection getClusterConnection() {
					return jedis.getClusterConnection();
				}

				@Override
				public boolean getConvertPipelineAndTxResults() {
					return jedis.getConvertPipelineAndTxResults();
				}

				@Override
				public RedisSentinelConnection getSentinelConnection() {
					return jedis.getSentinelConnection();
				}

				@Override
				public @Nullable DataAccessException translateExceptionIfPossible(RuntimeException ex) {
					return jedis.translateExceptionIfPossible(ex);
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserLockRegistryConfiguration {

		@Bean
		LockRegistry userLockRegistry() {
			return new UnusableLockRegistry();
		}

	}

	static class ReportService {

		@DistributedLock(name = "report", key = "#day")
		public long generate(String day, LongSupplier probe) {
			return probe.getAsLong();
		}

	}

	static class ArchiveService {

		@DistributedLock(name = "archive", key = "#day")
		public void archive(String day) {
		}

	}

	static class UnusableLockRegistry implements LockRegistry {

		@Override
		public FencedLock obtain(String name, LeaseOptions options) {
			throw new UnsupportedOperationException("Not used by these tests");
		}

		@Override
		public Optional<LockLease> tryAcquire(String name, Duration waitTime, LeaseOptions options) {
			throw new UnsupportedOperationException("Not used by these tests");
		}

		@Override
		public FencedReadWriteLock readWriteLock(String name) {
			throw new UnsupportedOperationException("Not used by these tests");
		}

		@Override
		public DistributedSemaphore semaphore(String name, int permits) {
			throw new UnsupportedOperationException("Not used by these tests");
		}

		@Override
		public Optional<Duration> remainingLease(String name) {
			throw new UnsupportedOperationException("Not used by these tests");
		}

	}

}
