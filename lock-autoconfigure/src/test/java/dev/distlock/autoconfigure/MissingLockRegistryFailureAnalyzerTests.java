package dev.distlock.autoconfigure;

import dev.distlock.DistributedLock;
import dev.distlock.LeaderOnly;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests for {@link MissingLockRegistryFailureAnalyzer}: {@link DistributedLock} and
 * {@link LeaderOnly} methods without a {@code LockRegistry} bean fail the startup, and
 * the analysis names them and the ways to provide a registry or to run them unlocked.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class MissingLockRegistryFailureAnalyzerTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(DistLockAutoConfiguration.class, DistLockInterceptionAutoConfiguration.class));

	@Test
	void annotatedMethodsWithoutARegistryFailStartupNamingThemAndWhatToAdd() {
		this.contextRunner.withBean("reportService", ReportService.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).isEqualTo(
					"Methods are annotated with @DistributedLock, @DistributedConcurrencyLimit or @LeaderOnly, but no"
							+ " LockRegistry bean exists to run them:" + System.lineSeparator()
							+ "- ReportService.generate(String) of bean 'reportService'");
			assertThat(analysis.getAction()).contains("spring-boot-starter-data-redis (on Lettuce or Jedis)")
				.contains("define a RedisConnectionFactory or a LockRegistry bean of your own")
				.contains("To run these methods unlocked, set distlock.enabled=false, which also skips every call of"
						+ " the @LeaderOnly methods");
		});
	}

	@Test
	void leaderOnlyMethodsWithoutARegistryFailStartup() {
		this.contextRunner.withBean("reportJob", ReportJob.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).endsWith("LockRegistry bean exists to run them:"
					+ System.lineSeparator() + "- ReportJob.run() of bean 'reportJob'");
		});
	}

	@Test
	void manyAnnotatedMethodsAreCountedBeyondTheFirstFive() {
		this.contextRunner.withBean("reportService", ReportService.class)
			.withBean("batchService", BatchService.class)
			.run((context) -> {
				String description = analyzeStartupFailure(context).getDescription();
				assertThat(description.lines().filter((line) -> line.startsWith("- "))).hasSize(5)
					.first()
					.isEqualTo("- ReportService.generate(String) of bean 'reportService'");
				assertThat(description).endsWith(System.lineSeparator() + "and 2 more");
			});
	}

	@Test
	void springBootReportsTheStartupFailureThroughTheAnalyzer(CapturedOutput output) {
		SpringApplication application = new SpringApplication(UnlockedApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--spring.main.banner-mode=off"))
			.satisfies((ex) -> assertThat(NestedExceptionUtils.getMostSpecificCause(ex))
				.isInstanceOf(MissingLockRegistryException.class));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("LockRegistry bean exists to run them:")
			.contains("- ReportService.generate(String) of bean 'reportService'")
			.contains("set distlock.enabled=false");
	}

	private static FailureAnalysis analyzeStartupFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
			.isInstanceOf(MissingLockRegistryException.class);
		FailureAnalysis analysis = new MissingLockRegistryFailureAnalyzer().analyze(context.getStartupFailure());
		assertThat(analysis).isNotNull();
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DistLockAutoConfiguration.class, DistLockInterceptionAutoConfiguration.class })
	static class UnlockedApplication {

		@Bean
		ReportService reportService() {
			return new ReportService();
		}

	}

	static class ReportService {

		@DistributedLock(name = "report", key = "#day")
		public void generate(String day) {
		}

	}

	static class ReportJob {

		@LeaderOnly("report")
		public void run() {
		}

	}

	static class BatchService {

		@DistributedLock
		public void first() {
		}

		@DistributedLock
		public void second() {
		}

		@DistributedLock
		public void third() {
		}

		@DistributedLock
		public void fourth() {
		}

		@DistributedLock
		public void fifth() {
		}

		@DistributedLock
		public void sixth() {
		}

	}

}
