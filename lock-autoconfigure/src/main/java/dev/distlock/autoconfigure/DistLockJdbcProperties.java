package dev.distlock.autoconfigure;

import dev.distlock.fencing.JdbcFence;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Configuration properties for distlock's {@link JdbcFence}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("distlock.jdbc")
public class DistLockJdbcProperties {

	/**
	 * Name of the table that holds the highest fencing token of each resource: letters,
	 * digits and underscores, optionally after a schema name and a dot.
	 */
	private String tableName = "distlock_fence";

	/**
	 * When to create the fence's table from the schema script distlock ships for the
	 * database.
	 */
	private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

	public String getTableName() {
		return this.tableName;
	}

	public void setTableName(String tableName) {
		JdbcFence.checkTableName(tableName);
		this.tableName = tableName;
	}

	public DatabaseInitializationMode getInitializeSchema() {
		return this.initializeSchema;
	}

	public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
		this.initializeSchema = initializeSchema;
	}

}
