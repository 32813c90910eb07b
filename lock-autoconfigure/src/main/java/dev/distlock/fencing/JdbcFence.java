package dev.distlock.fencing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * A {@link Fence} kept in a table of the application's database, one row per resource
 * with the highest fencing token recorded for it:
 *
 * <pre class="code">
 * CREATE TABLE distlock_fence (
 *     resource VARCHAR(255) NOT NULL PRIMARY KEY,
 *     token    BIGINT       NOT NULL
 * );
 * </pre>
 *
 * <p>
 * {@link #advance(String, long)} must run in the transaction of the write it guards (a
 * {@code @Transactional} method, or a {@code TransactionTemplate}): it joins that
 * transaction through Spring's {@code DataSourceUtils}, as a {@link JdbcTemplate} does,
 * so the write and the recorded token commit or roll back together, and a refused token
 * ({@link StaleFencingTokenException}) rolls the write back. Outside a transaction it
 * throws {@link IllegalStateException}.
 *
 * <p>
 * The token is recorded by an {@code UPDATE ... WHERE token <= ?}, and on a resource's
 * first use by an {@code INSERT}. Concurrent transactions that advance one resource are
 * serialised by the database's row lock: the second waits until the first commits or
 * rolls back, then compares its token with what the first left. A transaction that
 * advanced a resource therefore holds that row's lock until it ends, and a later holder's
 * advance waits for it, within the transaction's timeout if it has one.
 *
 * @since 0.1.0
 */
public class JdbcFence implements Fence {

	/**
	 * Name of the fence's table unless another is given.
	 */
	public static final String DEFAULT_TABLE_NAME = "distlock_fence";

	private static final String IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]*";

	private static final Pattern TABLE_NAME = Pattern.compile(IDENTIFIER + "(\\." + IDENTIFIER + ")?");

	private final JdbcTemplate jdbcTemplate;

	private final JdbcClient jdbc;

	private final String raise;

	private final String insert;

	private final String select;

	/**
	 * Create a fence in the table {@value #DEFAULT_TABLE_NAME} of a database.
	 * @param dataSource the database, the one the guarded writes go to
	 */
	public JdbcFence(DataSource dataSource) {
		this(dataSource, DEFAULT_TABLE_NAME);
	}

	/**
	 * Create a fence in the given table of a database.
	 * @param dataSource the database, the one the guarded writes go to
	 * @param tableName the table, with the columns {@code resource} and {@code token}
	 * @throws IllegalArgumentException if the table name is not a plain SQL name
	 * @see #checkTableName(String)
	 */
	public JdbcFence(DataSource dataSource, String tableName) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		checkTableName(tableName);
		this.jdbcTemplate = new JdbcTemplate(dataSource);
		this.jdbc = JdbcClient.create(this.jdbcTemplate);
		this.raise = "UPDATE " + tableName + " SET token = ? WHERE resource = ? AND token <= ?";
		this.insert = "INSERT INTO " + tableName + " (resource, token) VALUES (?, ?)";
		this.select = "SELECT token FROM " + tableName + " WHERE resource = ?";
	}

	/**
	 * Check that a table name is one that can be written into SQL as it is: letters,
	 * digits and underscores, not starting with a digit, optionally after a schema name
	 * and a dot.
	 * @param tableName the table name
	 * @throws IllegalArgumentException if it is not
	 */
	public static void checkTableName(String tableName) {
		Assert.isTrue(tableName != null && TABLE_NAME.matcher(tableName).matches(),
				() -> "Table name '" + tableName + "' is not a plain SQL name: use letters, digits and underscores,"
						+ " optionally after a schema name and a dot, such as '" + DEFAULT_TABLE_NAME + "' or 'app."
						+ DEFAULT_TABLE_NAME + "'");
	}

	/**
	 * Record a fencing token as the highest seen for a resource, or refuse it, in the
	 * current transaction.
	 * @param resource the resource the caller is about to write, at most as long as the
	 * table's {@code resource} column allows
	 * @param fencingToken the fencing token of the caller's hold
	 * @throws StaleFencingTokenException if a higher token was recorded for the resource
	 * @throws IllegalStateException if no transaction of this fence's data source is
	 * active
	 * @throws ConcurrencyFailureException if a transaction that committed after the
	 * current one began recorded a token for the resource that the current one cannot
	 * see, at an isolation level above {@code READ COMMITTED}: run it again
	 */
	@Override
	public void advance(String resource, long fencingToken) {
		Assert.hasLength(resource, "'resource' must not be empty");
		Boolean recorded = this.jdbcTemplate
			.execute((ConnectionCallback<Boolean>) (connection) -> record(connection, resource, fencingToken));
		if (!Boolean.TRUE.equals(recorded)) {
			throw refusal(resource, fencingToken);
		}
	}

	private boolean record(Connection connection, String resource, long fencingToken) throws SQLException {
		if (!TransactionSynchronizationManager.isActualTransactionActive() || connection.getAutoCommit()) {
			throw new IllegalStateException("JdbcFence.advance(\"" + resource + "\", " + fencingToken
					+ ") runs outside a transaction of its DataSource; it must run in the transaction of the write it"
					+ " guards, so that both commit or roll back together: call it from a @Transactional method whose"
					+ " transaction manager is this DataSource's (a DataSourceTransactionManager, JdbcTransactionManager"
					+ " or JpaTransactionManager on it)");
		}
		return raise(resource, fencingToken) || insert(connection, resource, fencingToken)
				|| raise(resource, fencingToken);
	}

	private boolean raise(String resource, long fencingToken) {
		return this.jdbc.sql(this.raise).params(fencingToken, resource, fencingToken).update() == 1;
	}

	/**
	 * Insert the resource's row, or return {@code false} when a row was there, or was
	 * inserted by a concurrent transaction that committed while this insert waited for
	 * it. A failed statement ends a PostgreSQL transaction, so the insert runs under a
	 * savepoint that its failure rolls back to.
	 */
	private boolean insert(Connection connection, String resource, long fencingToken) throws SQLException {
		Savepoint beforeInsert = connection.setSavepoint();
		try {
			this.jdbc.sql(this.insert).params(resource, fencingToken).update();
		}
		catch (DuplicateKeyException ex) {
			connection.rollback(beforeInsert);
			return false;
		}
		connection.releaseSavepoint(beforeInsert);
		return true;
	}

	private RuntimeException refusal(String resource, long fencingToken) {
		Long highest = this.jdbc.sql(this.select).param(resource).query(Long.class).optional().orElse(null);
		if (highest != null && highest > fencingToken) {
			return new StaleFencingTokenException(resource, fencingToken, highest);
		}
		return new ConcurrencyFailureException("Could not record fencing token " + fencingToken + " for resource '"
				+ resource + "': a transaction that committed after this one began recorded a token for it, which"
				+ " this transaction's isolation level hides from it; run the transaction again");
	}

}
