package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;

import dev.distlock.DistributedConcurrencyLimit;
import dev.distlock.DistributedLock;
import dev.distlock.LockContext;
import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.aop.DistLockAdvisor;
import dev.distlock.aop.LockLossTransactionListener;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistLockInterceptionAutoConfiguration}: {@link DistributedLock}
 * methods are locked with whatever {@link LockRegistry} bean there is, also one of the
 * application's own on a connection Spring Boot did not configure, and the application's
 * transaction managers learn to refuse commits whose locks are lost.
 */
@Timeout(60)
class DistLockInterceptionAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DistLockAutoConfiguration.class, DistLockInterceptionAutoConfiguration.class))
		.withBean("reportService", ReportService.class);

	@Test
	void annotatedMethodIsLockedWithTheApplicationsOwnRegistryWithoutRedisAutoConfiguration() {
		try (TestLockRegistry registry = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))) {
			this.contextRunner.withBean("userLockRegistry", LockRegistry.class, registry::registry).run((context) -> {
				assertThat(context).hasNotFailed().hasBean("distlockAdvisor");
				ReportService service = context.getBean(ReportService.class);
				assertThat(AopUtils.isAopProxy(service)).isTrue();
				try (RedisTestClient client = connect()) {
					assertThat(service.generate("2024-05-01", () -> client.sync().exists("lock:report:2024-05-01")))
						.as("lock keys of the day while the method ran")
						.isOne();
					assertThat(client.sync().exists("lock:report:2024-05-01")).isZero();
				}
			});
		}
	}

	@Test
	void registryIsFoundWhenAnAnnotatedMethodIsFirstCalledNotWhenTheAdvisorsAreCreated() {
		try (TestLockRegistry registry = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DistLockAutoConfiguration.class,
						DistLockInterceptionAutoConfiguration.class))
				.withBean("userLockRegistry", LockRegistry.class, registry::registry,
						(definition) -> definition.setLazyInit(true))
				.withBean("auditService", AuditService.class)
				.run((context) -> {
					assertThat(context).hasNotFailed().hasBean("distlockAdvisor");
					assertThat(context.getBeanFactory().containsSingleton("userLockRegistry"))
						.as("registry created by the startup")
						.isFalse();
					assertThat(context.getBean(AuditService.class).audit()).isEqualTo("AuditService.audit");
					assertThat(context.getBeanFactory().containsSingleton("userLockRegistry"))
						.as("registry created by the first call")
						.isTrue();
				});
		}
	}

	@Test
	void limitedMethodsAloneWithoutARegistryFailStartup() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DistLockAutoConfiguration.class, DistLockInterceptionAutoConfiguration.class))
			.withBean("exportService", ExportService.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(MissingLockRegistryException.class)
				.hasMessageEndingWith("methods ExportService.export() of bean 'exportService'"));
	}

	@Test
	void limitedMethodHoldsAPermitOfTheApplicationsOwnRegistryOutsideItsLock() {
		try (TestLockRegistry registry = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))) {
			this.contextRunner.withBean("userLockRegistry", LockRegistry.class, registry::registry)
				.withBean("exportService", LockedExportService.class)
				.run((context) -> {
					assertThat(context).hasNotFailed().hasBean("distlockConcurrencyLimitAdvisor");
					assertThat(context.getBean(LockedExportService.class).exportLocked())
						.containsExactly("export-files", "exports");
				});
		}
	}

	@Test
	void disabledPropertyLeavesAnnotatedMethodsUnproxiedWhateverRegistryThereIs() {
		try (TestLockRegistry registry = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))) {
			this.contextRunner.withBean("userLockRegistry", LockRegistry.class, registry::registry)
				.withPropertyValues("distlock.enabled=false")
				.run((context) -> {
					assertThat(context).hasNotFailed().doesNotHaveBean(DistLockAdvisor.class);
					assertThat(AopUtils.isAopProxy(context.getBean(ReportService.class))).isFalse();
				});
		}
	}

	@Test
	void annotatedMethodsWithoutARegistryFailStartup() {
		this.contextRunner.run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.isInstanceOf(MissingLockRegistryException.class)
			.hasMessage(
					"No LockRegistry bean exists to run the @DistributedLock, @DistributedConcurrencyLimit and @LeaderOnly"
							+ " methods ReportService.generate(String, LongSupplier) of bean 'reportService'"));
	}

	@Test
	void disabledPropertyStartsWithoutARegistryAndWithoutAdvisor() {
		this.contextRunner.withPropertyValues("distlock.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(DistLockAdvisor.class);
			assertThat(AopUtils.isAopProxy(context.getBean(ReportService.class))).isFalse();
		});
	}

	@Test
	void transactionManagersOfTheApplicationGetTheLockLossListener() {
		try (TestLockRegistry registry = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))) {
			this.contextRunner.withBean("userLockRegistry", LockRegistry.class, registry::registry)
				.withBean(DataSourceTransactionManager.class,
						DistLockInterceptionAutoConfigurationTests::h2TransactionManager)
				.run((context) -> assertThat(
						context.getBean(DataSourceTransactionManager.class).getTransactionExecutionListeners())
					.singleElement()
					.isInstanceOf(LockLossTransactionListener.class));
		}
	}

	@Test
	void transactionManagersAreLeftAloneWhenOnLostIsLog() {
		try (TestLockRegistry registry = TestLockRegistry.create(redis.server().uri(), Duration.ofSeconds(30))) {
			this.contextRunner.withBean("userLockRegistry", LockRegistry.class, registry::registry)
				.withBean(DataSourceTransactionManager.class,
						DistLockInterceptionAutoConfigurationTests::h2TransactionManager)
				.withPropertyValues("distlock.on-lost=log")
				.run((context) -> assertThat(
						context.getBean(DataSourceTransactionManager.class).getTransactionExecutionListeners())
					.isEmpty());
		}
	}

	@Test
	void contextWithoutAnnotatedMethodsStartsWithoutARegistry() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DistLockAutoConfiguration.class, DistLockInterceptionAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockRegistry.class)
				.doesNotHaveBean(DistLockAdvisor.class));
	}

	private static DataSourceTransactionManager h2TransactionManager() {
		return new DataSourceTransactionManager(
				new SimpleDriverDataSource(new org.h2.Driver(), "jdbc:h2:mem:tx-" + System.nanoTime()));
	}

	private static RedisTestClient connect() {
		return RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5));
	}

	static class ExportService {

		@DistributedConcurrencyLimit(name = "exports", limit = "2")
		public void export() {
		}

	}

	static class LockedExportService {

		@DistributedConcurrencyLimit(name = "exports", limit = "2")
		@DistributedLock(name = "export-files")
		public List<String> exportLocked() {
			return LockContext.leases().stream().map(LockLease::name).toList();
		}

	}

	static class AuditService {

		@DistributedLock
		public String audit() {
			return LockContext.currentLease().orElseThrow().name();
		}

	}

	static class ReportService {

		@DistributedLock(name = "report", key = "#day")
		public long generate(String day, LongSupplier probe) {
			return probe.getAsLong();
		}

	}

}
