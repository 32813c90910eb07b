package dev.distlock.autoconfigure;

import javax.sql.DataSource;

import dev.distlock.fencing.JdbcFence;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.autoconfigure.init.OnDatabaseInitializationCondition;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Auto-configuration of distlock's {@link JdbcFence} on the application's
 * {@link DataSource}, and of its table's creation ({@code distlock.jdbc.*}).
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass({ JdbcTemplate.class, DataSourceScriptDatabaseInitializer.class })
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistLockJdbcProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class DistLockJdbcFenceAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(JdbcFence.class)
	@DependsOnDatabaseInitialization
	JdbcFence distlockJdbcFence(DataSource dataSource, DistLockJdbcProperties properties) {
		return new JdbcFence(dataSource, properties.getTableName());
	}

	@Bean
	@ConditionalOnMissingBean(DistLockJdbcSchemaInitializer.class)
	@Conditional(OnFenceSchemaInitializationCondition.class)
	DistLockJdbcSchemaInitializer distlockJdbcSchemaInitializer(DataSource dataSource,
			DistLockJdbcProperties properties) {
		return new DistLockJdbcSchemaInitializer(dataSource, properties);
	}

	static class OnFenceSchemaInitializationCondition extends OnDatabaseInitializationCondition {

		OnFenceSchemaInitializationCondition() {
			super("distlock JDBC fence", "distlock.jdbc.initialize-schema");
		}

	}

}
