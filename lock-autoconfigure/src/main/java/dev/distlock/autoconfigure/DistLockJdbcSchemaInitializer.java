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
import org.springframework.boot.sql.init.DatabaseInitializationMode;
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
 * <p>
 * It connects to the database only to create the table: with
 * {@link DatabaseInitializationMode#EMBEDDED} it tells an embedded database from its type
 * and JDBC URL, so that an application whose server database is down, or that never uses
 * the fence, starts as it would without distlock.
 *
 * @since 0.1.0
 */
public class DistLockJdbcSchemaInitializer extends DataSourceScriptDatabaseInitializer {

	private static final String SCHEMA_LOCATION = "classpath:dev/distlock/fencing/schema-@@platform@@.sql";

	private final DatabaseInitializationSettings settings;

	private final String tableName;

	/**
	 * Create an initializer of the fence's table.
	 * @param dataSource the database
	 * @param properties the fence's properties: table name and initialization mode
	 */
	public DistLockJdbcSchemaInitializer(DataSource dataSource, DistLockJdbcProperties properties) {
		this(dataSource, settings(properties), properties.getTableName());
	}

	private DistLockJdbcSchemaInitializer(DataSource dataSource, DatabaseInitializationSettings settings,
			String tableName) {
		super(dataSource, settings);
		this.settings = settings;
		this.tableName = tableName;
	}

	private static DatabaseInitializationSettings settings(DistLockJdbcProperties properties) {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		settings.setMode(properties.getInitializeSchema());
		settings.setContinueOnError(true);
		return settings;
	}

	/**
	 * Create the fence's table if the initialization mode says so, choosing the script by
	 * the database the data source connects to; connect to nothing otherwise.
	 * @return whether the table's script ran
	 */
	@Override
	public boolean initializeDatabase() {
		if (!createsTable()) {
			return false;
		}
		this.settings.setSchemaLocations(
				new PlatformPlaceholderDatabaseDriverResolver().withDriverPlatform(DatabaseDriver.MARIADB, "mysql")
					.resolveAll(getDataSource(), SCHEMA_LOCATION));
		return super.initializeDatabase();
	}

	private boolean createsTable() {
		return switch (this.settings.getMode()) {
			case ALWAYS -> true;
			case EMBEDDED -> isEmbeddedDatabase();
			case NEVER -> false;
		};
	}

	/**
	 * Return whether the data source is an embedded database, told from its type and JDBC
	 * URL without connecting to it.
	 */
	@Override
	protected boolean isEmbeddedDatabase() {
		return EmbeddedDataSources.isEmbedded(getDataSource());
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
