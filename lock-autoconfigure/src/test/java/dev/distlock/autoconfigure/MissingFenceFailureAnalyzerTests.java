package dev.distlock.autoconfigure;

import javax.sql.DataSource;

import dev.distlock.fencing.JdbcFence;
import dev.distlock.fencing.RedisFence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests for {@link MissingFenceFailureAnalyzer}: a bean that needs a fence distlock could
 * not auto-configure fails the startup, and the analysis says what the fence needs.
 */
@ExtendWith(OutputCaptureExtension.class)
class MissingFenceFailureAnalyzerTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(DistLockJdbcFenceAutoConfiguration.class, DistLockRedisFenceAutoConfiguration.class));

	@Test
	void jdbcFenceWithoutSpringBootsJdbcSupportNamesTheStarter() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(DataSourceScriptDatabaseInitializer.class))
			.withUserConfiguration(OneDataSource.class, LedgerConfiguration.class)
			.run((context) -> {
				FailureAnalysis analysis = analyzeStartupFailure(context);
				assertThat(analysis.getDescription()).isEqualTo("A bean needs distlock's JdbcFence, which is"
						+ " auto-configured only with Spring Boot's JDBC support (spring-boot-jdbc) on the class path,"
						+ " and it is not there: spring-jdbc alone is not enough.");
				assertThat(analysis.getAction()).isEqualTo(
						"Add spring-boot-starter-jdbc, or define a JdbcFence bean of your own: new JdbcFence(dataSource).");
			});
	}

	@Test
	void jdbcFenceWithSeveralDataSourcesNamesThePrimaryOne() {
		this.contextRunner.withUserConfiguration(TwoDataSources.class, LedgerConfiguration.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).startsWith("A bean needs distlock's JdbcFence, which is"
					+ " auto-configured on the application's single DataSource");
			assertThat(analysis.getAction()).startsWith("Make one DataSource bean @Primary");
		});
	}

	@Test
	void redisFenceWithoutAStringRedisTemplateNamesIt() {
		this.contextRunner.withUserConfiguration(ReportConfiguration.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription()).startsWith("A bean needs distlock's RedisFence, which is"
					+ " auto-configured on the application's single StringRedisTemplate");
			assertThat(analysis.getAction()).endsWith("new RedisFence(stringRedisTemplate, \"lock:\").");
		});
	}

	@Test
	void otherMissingBeansAreLeftToSpringBoot() {
		this.contextRunner.withUserConfiguration(NeedsADataSource.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(new MissingFenceFailureAnalyzer().analyze(context.getStartupFailure())).isNull();
		});
	}

	@Test
	void springBootReportsAMissingFenceThroughTheAnalyzerRatherThanItsOwn(CapturedOutput output) {
		SpringApplication application = new SpringApplication(FencedApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--spring.main.banner-mode=off"));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("A bean needs distlock's JdbcFence, which is auto-configured on the application's single"
					+ " DataSource")
			.contains("Make one DataSource bean @Primary");
	}

	private static FailureAnalysis analyzeStartupFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		FailureAnalysis analysis = new MissingFenceFailureAnalyzer().analyze(context.getStartupFailure());
		assertThat(analysis).isNotNull();
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	static class OneDataSource {

		@Bean
		DataSource dataSource() {
			return new DriverManagerDataSource("jdbc:h2:mem:missing-fence;DB_CLOSE_DELAY=-1");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoDataSources {

		@Bean
		DataSource first() {
			return new DriverManagerDataSource("jdbc:h2:mem:first");
		}

		@Bean
		DataSource second() {
			return new DriverManagerDataSource("jdbc:h2:mem:second");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LedgerConfiguration {

		@Bean
		Ledger ledger(JdbcFence fence) {
			return new Ledger();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ReportConfiguration {

		@Bean
		Ledger reports(RedisFence fence) {
			return new Ledger();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NeedsADataSource {

		@Bean
		Ledger ledger(DataSource dataSource) {
			return new Ledger();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(DistLockJdbcFenceAutoConfiguration.class)
	@Import({ TwoDataSources.class, LedgerConfiguration.class })
	static class FencedApplication {

	}

	static class Ledger {

	}

}
