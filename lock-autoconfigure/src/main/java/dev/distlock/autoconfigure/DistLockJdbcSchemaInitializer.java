package dev.distlock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.distlock.fencing.JdbcFence;

import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.jdbc.init.PlatformPlaceholderDatabaseDriverResolver;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;

/**
 * Creates the table of distlock's {@link JdbcFence} from the schema script distlock ships
 * for the database ({@code dev/distlock/fencing/schema-<platform>.sql}, for H2, HSQLDB,
 * Derby, PostgreSQL and MySQL or MariaDB), under the configured table name, as
 * {@code distlock.jdbc.initialize-schema} says.
 *
 * <p>
 * Like the schema initializers of Spring Session, Spring Batch and Quartz, it goes on
 * when a statement fails, such as Derby's {@code CREATE TABLE} (Derby has no
 * {@code IF NOT EXISTS}) on a database that has the table already, or any
 * {@code CREATE TABLE} of a user who may not create tables; a table that is missing then
 * shows in the fence's first statement, which names it.
 *
 * @since 0.1.0
 */
public class DistLockJdbcSchemaInitializer extends DataSourceScriptDatabaseInitializer {

	private static final String SCHEMA_LOCATION = "classpath:dev/distlock/fencing/schema-@@platform@@.sql";

	private final String tableName;

	/**
	 * Create an initializer of the fence's table.
	 * @param dataSource the database
	 * @param properties the fence's properties: table name and initialization mode
	 */
	public DistLockJdbcSchemaInitializer(DataSource dataSource, DistLockJdbcProperties properties) {
		super(dataSource, settings(dataSource, properties));
		this.tableName = properties.getTableName();
	}

	private static DatabaseInitializationSettings settings(DataSource dataSource, DistLockJdbcProperties properties) {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		settings.setSchemaLocations(
				new PlatformPlaceholderDatabaseDriverResolver().withDriverPlatform(DatabaseDriver.MARIADB, "mysql")
					.resolveAll(dataSource, SCHEMA_LOCATION));
		settings.setMode(properties.getInitializeSchema());
		settings.setContinueOnError(true);
		return settings;
	}

	/**
	 * Run the scripts with the configured table name in place of
	 * {@value JdbcFence#DEFAULT_TABLE_NAME}.
	 */
	@Override
	protected void runScripts(Scripts scripts) {
		Charset encoding = (scripts.getEncoding() != null) ? scripts.getEncoding() : StandardCharsets.UTF_8;
		List<Resource> named = new ArrayList<>();
		for (Resource script : scripts) {
			named.add(withTableName(script, encoding));
		}
		super.runScripts(new Scripts(named).continueOnError(scripts.isContinueOnError())
			.separator(scripts.getSeparator())
			.encoding(encoding));
	}

	private Resource withTableName(Resource script, Charset encoding) {
		try {
			String sql = script.getContentAsString(encoding).replace(JdbcFence.DEFAULT_TABLE_NAME, this.tableName);
			return new ByteArrayResource(sql.getBytes(encoding),
					script.getDescription() + " for table '" + this.tableName + "'");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + script.getDescription(), ex);
		}
	}

}
