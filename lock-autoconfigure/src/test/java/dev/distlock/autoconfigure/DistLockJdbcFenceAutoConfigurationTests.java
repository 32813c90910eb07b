package dev.distlock.autoconfigure;

import java.util.Arrays;

import javax.sql.DataSource;

import dev.distlock.fencing.JdbcFence;
import dev.distlock.testsupport.FreePorts;
import dev.distlock.testsupport.PostgresServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistLockJdbcFenceAutoConfiguration} on Spring Boot's DataSource
 * auto-configuration and an embedded H2 database.
 */
class DistLockJdbcFenceAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DistLockJdbcFenceAutoConfiguration.class));

	@Test
	void providesAJdbcFenceWhoseTableIsCreatedOnTheEmbeddedDatabaseBeforeItIsUsed() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(JdbcFence.class)
				.hasSingleBean(DistLockJdbcSchemaInitializer.class)
				.hasSingleBean(DistLockJdbcProperties.class);
			assertThat(context.getBeanFactory().getBeanDefinition("distlockJdbcFence").getDependsOn())
				.contains("distlockJdbcSchemaInitializer");
			new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
				.executeWithoutResult((status) -> context.getBean(JdbcFence.class).advance("report", 5));
			assertThat(new JdbcTemplate(context.getBean(DataSource.class))
				.queryForObject("SELECT token FROM distlock_fence WHERE resource = 'report'", Long.class)).isEqualTo(5);
		});
	}

	@Test
	void startsWithoutConnectingToAServerDatabaseThatIsDownWhenItsSchemaIsLeftAlone() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistLockJdbcFenceAutoConfiguration.class))
			.withBean(DataSource.class,
					() -> new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:" + FreePorts.find() + "/app"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(JdbcFence.class)
				.hasSingleBean(DistLockJdbcSchemaInitializer.class));
	}

	@Test
	@Timeout(120)
	void createsTheTableOnAServerDatabaseWhenInitializationIsAlways() {
		try (PostgresServer postgres = PostgresServer.start()) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DistLockJdbcFenceAutoConfiguration.class))
				.withBean(DataSource.class,
						() -> new DriverManagerDataSource(postgres.jdbcUrl(), postgres.username(), postgres.password()))
				.withPropertyValues("distlock.jdbc.initialize-schema=always")
				.run((context) -> {
					assertThat(context).hasNotFailed().hasSingleBean(JdbcFence.class);
					assertThat(new JdbcTemplate(context.getBean(DataSource.class))
						.queryForObject("SELECT count(*) FROM distlock_fence", Long.class)).isZero();
				});
		}
	}

	@Test
	void tellsAnEmbeddedDatabaseFromItsUrlAndAServerDatabaseFromItsOwn() {
		assertThat(EmbeddedDataSources.isEmbedded(new DriverManagerDataSource("jdbc:h2:mem:fence"))).isTrue();
		assertThat(EmbeddedDataSources.isEmbedded(new DriverManagerDataSource("jdbc:hsqldb:mem:fence"))).isTrue();
		assertThat(EmbeddedDataSources.isEmbedded(new DriverManagerDataSource("jdbc:h2:file:./fence"))).isFalse();
		assertThat(EmbeddedDataSources.isEmbedded(new DriverManagerDataSource("jdbc:postgresql://db/app"))).isFalse();
		assertThat(EmbeddedDataSources
			.isEmbedded(new LazyConnectionDataSourceProxy(new DriverManagerDataSource("jdbc:h2:mem:fence")))).isTrue();
	}

	@Test
	void createsNoSchemaInitializerWhenInitializationIsNever() {
		this.contextRunner.withPropertyValues("distlock.jdbc.initialize-schema=never")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(JdbcFence.class)
				.doesNotHaveBean(DistLockJdbcSchemaInitializer.class));
	}

	@Test
	void backsOffWithoutADataSource() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistLockJdbcFenceAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(JdbcFence.class)
				.doesNotHaveBean(DistLockJdbcSchemaInitializer.class));
	}

	@Test
	void backsOffWithTwoDataSourcesAndNoPrimary() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistLockJdbcFenceAutoConfiguration.class))
			.withUserConfiguration(TwoDataSources.class)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(JdbcFence.class));
	}

	@Test
	void backsOffWithoutSpringJdbc() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(JdbcTemplate.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(JdbcFence.class));
	}

	@Test
	void backsOffWhenDistlockIsDisabled() {
		this.contextRunner.withPropertyValues("distlock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(JdbcFence.class)
				.doesNotHaveBean(DistLockJdbcSchemaInitializer.class));
	}

	@Test
	void backsOffFromTheApplicationsJdbcFence() {
		this.contextRunner.withUserConfiguration(OwnJdbcFence.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(JdbcFence.class)
				.hasBean("ownJdbcFence"));
	}

	@Test
	void tableNameThatIsNotAPlainSqlNameFailsWithClearMessage() {
		this.contextRunner.withPropertyValues("distlock.jdbc.table-name=fence; DROP TABLE orders")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("Unable to set value for property table-name")
				.rootCause()
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessage("Table name 'fence; DROP TABLE orders' is not a plain SQL name: use letters, digits and"
						+ " underscores, optionally after a schema name and a dot, such as 'distlock_fence' or"
						+ " 'app.distlock_fence'"));
	}

	@Test
	void bindsTheTableNameWithASchema() {
		this.contextRunner
			.withPropertyValues("distlock.jdbc.table-name=app.fences", "distlock.jdbc.initialize-schema=never")
			.run((context) -> assertThat(context.getBean(DistLockJdbcProperties.class).getTableName())
				.isEqualTo("app.fences"));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnJdbcFence {

		@Bean
		JdbcFence ownJdbcFence(DataSource dataSource) {
			return new JdbcFence(dataSource, "own_fence");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoDataSources {

		@Bean
		DataSource first() {
			return dataSource("first");
		}

		@Bean
		DataSource second() {
			return dataSource("second");
		}

		private static DataSource dataSource(String name) {
			return new DriverManagerDataSource("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
		}

	}

}
