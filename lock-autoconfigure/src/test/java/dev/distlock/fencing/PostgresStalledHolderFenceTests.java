package dev.distlock.fencing;

import java.time.Duration;

import dev.distlock.testsupport.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link StalledHolderFenceContract} on a real PostgreSQL server that both JVMs connect
 * to.
 */
class PostgresStalledHolderFenceTests extends StalledHolderFenceContract {

	private static PostgresServer server;

	PostgresStalledHolderFenceTests() {
		super(server.jdbcUrl(), server.username(), server.password());
	}

	@BeforeAll
	static void startServer() {
		server = PostgresServer.start();
	}

	@AfterAll
	static void stopServer() {
		server.close();
	}

	@Override
	protected void awaitWaitingForLock(Duration timeout) {
		PostgresJdbcFenceTests.awaitSessionWaitingForLock(PostgresJdbcFenceTests.dataSource(server), timeout);
	}

}
