package dev.distlock.fencing;

import java.time.Duration;
import java.util.List;

import dev.distlock.testsupport.TestThread;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.awaitility.Awaitility.await;

/**
 * {@link JdbcFenceContract} on an in-memory H2 database.
 */
class H2JdbcFenceTests extends JdbcFenceContract {

	/**
	 * Where H2 waits for a lock of another transaction: a row lock, or a retry of an
	 * insert that conflicts with another transaction's uncommitted row, which H2 repeats
	 * until that transaction ends.
	 */
	static final List<String> LOCK_WAITS = List.of("org.h2.mvstore.tx.Transaction.waitFor",
			"org.h2.command.Command.filterConcurrentUpdate");

	H2JdbcFenceTests() {
		super(new DriverManagerDataSource("jdbc:h2:mem:fence-tests;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000", "sa", ""),
				true);
	}

	@Override
	protected void awaitWaitingForLock(TestThread thread, Duration timeout) {
		await().atMost(timeout)
			.pollInterval(Duration.ofMillis(1))
			.until(() -> LOCK_WAITS.stream().anyMatch(thread::isIn));
	}

}
