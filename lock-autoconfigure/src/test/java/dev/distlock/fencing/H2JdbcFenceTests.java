package dev.distlock.fencing;

import java.time.Duration;

import dev.distlock.testsupport.TestThread;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.awaitility.Awaitility.await;

/**
 * {@link JdbcFenceContract} on an in-memory H2 database.
 */
class H2JdbcFenceTests extends JdbcFenceContract {

	H2JdbcFenceTests() {
		super(new DriverManagerDataSource("jdbc:h2:mem:fence-tests;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000", "sa", ""),
				true);
	}

	/**
	 * Wait until the thread waits for another transaction's row lock, or retries an
	 * insert that conflicts with another transaction's uncommitted row, as H2 does until
	 * that transaction ends.
	 */
	@Override
	protected void awaitWaitingForLock(TestThread thread, Duration timeout) {
		await().atMost(timeout)
			.pollInterval(Duration.ofMillis(1))
			.until(() -> thread.isIn("org.h2.mvstore.tx.Transaction.waitFor")
					|| thread.isIn("org.h2.command.Command.filterConcurrentUpdate"));
	}

}
