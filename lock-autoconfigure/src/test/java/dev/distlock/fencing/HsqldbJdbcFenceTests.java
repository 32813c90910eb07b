package dev.distlock.fencing;

import java.time.Duration;

import dev.distlock.testsupport.TestThread;

import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * {@link JdbcFenceContract} on an in-memory HSQLDB database, which locks whole tables.
 */
class HsqldbJdbcFenceTests extends JdbcFenceContract {

	HsqldbJdbcFenceTests() {
		super(new DriverManagerDataSource("jdbc:hsqldb:mem:fence-tests", "sa", ""), true);
	}

	@Override
	protected void awaitWaitingForLock(TestThread thread, Duration timeout) {
		thread.awaitIn("org.hsqldb.lib.CountUpDownLatch.await", timeout);
	}

}
