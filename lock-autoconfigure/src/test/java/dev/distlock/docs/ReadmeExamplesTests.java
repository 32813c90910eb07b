package dev.distlock.docs;

import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;

import dev.distlock.DistributedSemaphore;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockRegistry;
import dev.distlock.aop.RedisInterceptionContexts;
import dev.distlock.autoconfigure.DistLockJdbcFenceAutoConfiguration;
import dev.distlock.autoconfigure.DistLockLeadershipAutoConfiguration;
import dev.distlock.docs.TokenStore.Write;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests that the snippets of the README and of the user guide do what the text says, on a
 * real {@code redis-server}, in an application context with distlock's
 * auto-configuration.
 */
@Timeout(30)
class ReadmeExamplesTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = RedisInterceptionContexts.on(redis.server())
		.withConfiguration(AutoConfigurations.of(DistLockLeadershipAutoConfiguration.class))
		.withPropertyValues("distlock.leader.names=report", "catalog.exports.limit=2", "catalog.exports.wait-time=0s")
		.withBean(Payments.class)
		.withBean(OrderService.class)
		.withBean(TokenStore.class)
		.withBean(RegistryExamples.class)
		.withBean(Catalog.class)
		.withBean(CatalogExports.class)
		.withBean(ReportJob.class);

	@Test
	void annotatedPaymentCarriesAGreaterFencingTokenEachTime() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			Receipt first = orders.pay(42);
			Receipt second = orders.pay(42);
			assertThat(first.fencingToken()).isPositive();
			assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
			assertThat(context.getBean(LockRegistry.class).isLocked("order:42")).isFalse();
		});
	}

	@Test
	void annotatedPaymentIsNotMadeWhileAnotherProcessHoldsTheOrder() {
		this.contextRunner.run((context) -> {
			try (TestLockRegistry rival = RedisInterceptionContexts.rival(redis.server())) {
				rival.registry().acquire("order:42", Duration.ZERO);
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> context.getBean(OrderService.class).pay(42));
			}
		});
	}

	@Test
	void leaseWritesTheReportWithItsFencingTokenAndReleasesTheLock() {
		this.contextRunner.run((context) -> {
			context.getBean(RegistryExamples.class).writeReport("totals");
			assertThat(context.getBean(TokenStore.class).writes()).singleElement().satisfies((write) -> {
				assertThat(write.value()).isEqualTo("totals");
				assertThat(write.fencingToken()).isPositive();
			});
			assertThat(context.getBean(LockRegistry.class).isLocked("report:daily")).isFalse();
		});
	}

	@Test
	void fencedLockWritesUnderIncreasingTokensAndNotWhileAnotherProcessHoldsIt() {
		this.contextRunner.run((context) -> {
			RegistryExamples examples = context.getBean(RegistryExamples.class);
			examples.reserve();
			try (TestLockRegistry rival = RedisInterceptionContexts.rival(redis.server())) {
				rival.registry().acquire("inventory", Duration.ZERO);
				examples.reserve();
			}
			examples.reserve();
			assertThat(context.getBean(TokenStore.class).writes()).extracting(Write::fencingToken)
				.hasSize(2)
				.isSorted()
				.doesNotHaveDuplicates();
		});
	}

	@Test
	void sharedReadsSeeTheReplacedCatalogAndWaitForAWriterElsewhere() {
		this.contextRunner.run((context) -> {
			Catalog catalog = context.getBean(Catalog.class);
			catalog.replace(Map.of("tea", 3L));
			assertThat(catalog.read()).containsExactly(Map.entry("tea", 3L));
			try (TestLockRegistry rival = RedisInterceptionContexts.rival(redis.server())) {
				rival.registry().acquire("catalog", Duration.ZERO);
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(catalog::read);
			}
		});
	}

	@Test
	void concurrencyLimitRefusesAnExportWhileOtherProcessesHoldEveryPermit() {
		this.contextRunner.run((context) -> {
			CatalogExports exports = context.getBean(CatalogExports.class);
			assertThat(exports.export()).isPositive();
			try (TestLockRegistry rival = RedisInterceptionContexts.rival(redis.server())) {
				DistributedSemaphore permits = rival.registry().semaphore("catalog-exports", 2);
				permits.acquire(Duration.ZERO);
				permits.acquire(Duration.ZERO);
				assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(exports::export);
			}
		});
	}

	@Test
	void semaphoreLeadershipAndReadWriteLockWriteUnderTheirFencingTokens() {
		this.contextRunner.run((context) -> {
			RegistryExamples examples = context.getBean(RegistryExamples.class);
			examples.export();
			examples.leadReports();
			examples.readThenWrite("tea");
			assertThat(context.getBean(TokenStore.class).writes()).extracting(Write::value)
				.containsExactly("export", "report", "read", "tea");
			assertThat(context.getBean(TokenStore.class).writes()).extracting(Write::fencingToken)
				.allSatisfy((token) -> assertThat(token).isPositive());
		});
	}

	@Test
	void leaderOnlyJobRunsOnTheSoleInstanceWithItsTermsToken() {
		this.contextRunner.run((context) -> {
			context.getBean(ReportJob.class).generateReport();
			assertThat(context.getBean(TokenStore.class).writes()).singleElement()
				.satisfies((write) -> assertThat(write.fencingToken())
					.isEqualTo(context.getBean(LockRegistry.class).leadership("report").fencingToken().getAsLong()));
		});
	}

	@Test
	void fencedPublicationCommitsTheReportAndTheHighestToken() {
		this.contextRunner.withUserConfiguration(FencedReports.class).withBean(ReportPublisher.class).run((context) -> {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			jdbc.execute("CREATE TABLE report (published_on DATE NOT NULL, body VARCHAR(255) NOT NULL)");
			context.getBean(ReportPublisher.class).publish(LocalDate.of(2026, 1, 2), "totals");
			assertThat(jdbc.queryForList("SELECT body FROM report", String.class)).containsExactly("totals");
			assertThat(jdbc.queryForObject("SELECT token FROM distlock_fence WHERE resource = 'report:2026-01-02'",
					Long.class))
				.isPositive();
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
			JdbcTemplateAutoConfiguration.class, DistLockJdbcFenceAutoConfiguration.class })
	static class FencedReports {

	}

}
