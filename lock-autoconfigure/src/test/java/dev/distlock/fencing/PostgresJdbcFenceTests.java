package dev.distlock.fencing;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.distlock.testsupport.TestThread;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link JdbcFenceContract} on a real PostgreSQL server, and what PostgreSQL's
 * {@code REPEATABLE READ} does to it.
 */
class PostgresJdbcFenceTests extends JdbcFenceContract {

	@RegisterExtension
	static final PostgresExtension postgres = new PostgresExtension();

	PostgresJdbcFenceTests() {
		super(postgres.dataSource(), false);
	}

	@Override
	protected void awaitWaitingForLock(TestThread thread, Duration timeout) {
		postgres.awaitSessionWaitingForLock(timeout);
	}

	@Test
	void repeatableReadTransactionThatCannotSeeATokenRecordedAfterItBeganIsToldToRunAgain()
			throws InterruptedException {
		DataSource dataSource = postgres.dataSource();
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
