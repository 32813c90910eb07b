package dev.distlock.fencing;

import java.util.List;

import javax.sql.DataSource;

import dev.distlock.autoconfigure.DistLockJdbcProperties;
import dev.distlock.autoconfigure.DistLockJdbcSchemaInitializer;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tables of the JDBC fence tests in one database: the fence's table
 * ({@value JdbcFence#DEFAULT_TABLE_NAME}) and a ledger of business writes
 * ({@value #LEDGER}, one column {@code entry}).
 */
final class FenceTables {

	/** The table of the business writes that the fence guards. */
	static final String LEDGER = "fence_test_ledger";

	private final DataSource dataSource;

	private final JdbcTemplate jdbc;

	FenceTables(DataSource dataSource) {
		this.dataSource = dataSource;
		this.jdbc = new JdbcTemplate(dataSource);
	}

	/**
	 * Drop the tables, and the given others, and create the fence's table from its schema
	 * script and an empty ledger.
	 * @param others further tables to drop
	 */
	void recreate(String... others) {
		drop(JdbcFence.DEFAULT_TABLE_NAME, LEDGER);
		drop(others);
		DistLockJdbcProperties properties = new DistLockJdbcProperties();
		properties.setInitializeSchema(DatabaseInitializationMode.ALWAYS);
		DistLockJdbcSchemaInitializer initializer = new DistLockJdbcSchemaInitializer(this.dataSource, properties);
		initializer.setResourceLoader(new DefaultResourceLoader());
		assertThat(initializer.initializeDatabase()).as("schema script run").isTrue();
		this.jdbc.execute("CREATE TABLE " + LEDGER + " (entry VARCHAR(64) NOT NULL PRIMARY KEY)");
	}

	/**
	 * Return the recorded tokens.
	 * @return {@code resource=token} for each resource, by resource
	 */
	List<String> recordedTokens() {
		return this.jdbc.query("SELECT resource, token FROM " + JdbcFence.DEFAULT_TABLE_NAME + " ORDER BY resource",
				(row, rowNum) -> row.getString("resource") + "=" + row.getLong("token"));
	}

	/**
	 * Return the committed entries of the ledger.
	 * @return the entries, in order
	 */
	List<String> ledger() {
		return this.jdbc.queryForList("SELECT entry FROM " + LEDGER + " ORDER BY entry", String.class);
	}

	/**
	 * Insert an entry into the ledger, in the current transaction if there is one.
	 * @param entry the entry
	 */
	void write(String entry) {
		this.jdbc.update("INSERT INTO " + LEDGER + " (entry) VALUES (?)", entry);
	}

	boolean exists(String table) {
		try {
			this.jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Long.class);
			return true;
		}
		catch (DataAccessException ex) {
			return false;
		}
	}

	void drop(String... tables) {
		for (String table : tables) {
			if (exists(table)) {
				this.jdbc.execute("DROP TABLE " + table);
			}
		}
	}

}
