package dev.distlock.fencing;

import java.time.Duration;

import dev.distlock.testsupport.TestThread;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * {@link JdbcFenceContract} on an in-memory Derby database.
 */
class DerbyJdbcFenceTests extends JdbcFenceContract {

	DerbyJdbcFenceTests() {
		super(new DriverManagerDataSource("jdbc:derby:memory:fence-tests;create=true"), true);
	}

	@Override
	protected void awaitWaitingForLock(TestThread thread, Duration timeout) {
		thread.awaitIn("org.apache.derby.impl.services.locks.ActiveLock.waitForGrant", timeout);
	}

}
