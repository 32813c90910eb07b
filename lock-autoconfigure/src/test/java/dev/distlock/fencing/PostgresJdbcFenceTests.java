package dev.distlock.fencing;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.distlock.testsupport.PostgresServer;
import dev.distlock.testsupport.TestThread;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link JdbcFenceContract} on a real PostgreSQL server, and what PostgreSQL's
 * {@code REPEATABLE READ} does to it.
 */
class PostgresJdbcFenceTests extends JdbcFenceContract {

	private static PostgresServer server;

	PostgresJdbcFenceTests() {
		super(dataSource(server), false);
	}

	@BeforeAll
	static void startServer() {
		server = PostgresServer.start();
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	/**
	 * Return a data source of a PostgreSQL server's database.
	 * @param server the server
	 * @return the data source
	 */
	static DataSource dataSource(PostgresServer server) {
		return new DriverManagerDataSource(server.jdbcUrl(), server.username(), server.password());
	}

	/**
	 * Wait until a session of a PostgreSQL server waits for a lock.
	 * @param dataSource the server's database
	 * @param timeout how long to wait at most
	 */
	static void awaitSessionWaitingForLock(DataSource dataSource, Duration timeout) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		await().atMost(timeout)
			.pollInterval(Duration.ofMillis(10))
			.until(() -> jdbc.queryForObject("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
					Long.class) > 0);
	}

	@Override
	protected void awaitWaitingForLock(TestThread thread, Duration timeout) {
		awaitSessionWaitingForLock(dataSource(server), timeout);
	}

	@Test
	void repeatableReadTransactionThatCannotSeeATokenRecordedAfterItBeganIsToldToRunAgain()
			throws InterruptedException {
		DataSource dataSource = dataSource(server);
		DataSourceTransactionManager transactions = new DataSourceTransactionManager(dataSource);
		TransactionTemplate repeatableRead = new TransactionTemplate(transactions);
		repeatableRead.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
		FenceTables tables = new FenceTables(dataSource);
		JdbcFence fence = new JdbcFence(dataSource);
		try (TestThread other = TestThread.start("other")) {
			assertThatExceptionOfType(ConcurrencyFailureException.class)
				.isThrownBy(() -> repeatableRead.executeWithoutResult((status) -> {
					assertThat(tables.recordedTokens()).as("snapshot").isEmpty();
					other
						.run(() -> new TransactionTemplate(transactions)
							.executeWithoutResult((otherStatus) -> fence.advance("report", 9)))
						.orTimeout(10, TimeUnit.SECONDS)
						.join();
					fence.advance("report", 12);
				}))
				.withMessage("Could not record fencing token 12 for resource 'report': a transaction that committed"
						+ " after this one began recorded a token for it, which this transaction's isolation level"
						+ " hides from it; run the transaction again");
		}
		assertThat(tables.recordedTokens()).containsExactly("report=9");
	}

}
