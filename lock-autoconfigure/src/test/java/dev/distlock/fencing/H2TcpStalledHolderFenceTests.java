package dev.distlock.fencing;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;

import dev.distlock.testsupport.FreePorts;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import static org.awaitility.Awaitility.await;

/**
 * {@link StalledHolderFenceContract} on an in-memory H2 database that an H2 TCP server in
 * this JVM serves to both JVMs.
 */
class H2TcpStalledHolderFenceTests extends StalledHolderFenceContract {

	private static Server server;

	H2TcpStalledHolderFenceTests() {
		super("jdbc:h2:tcp://127.0.0.1:" + server.getPort()
				+ "/mem:stalled-holder;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=60000", "sa", "");
	}

	@BeforeAll
	static void startServer() throws SQLException {
		server = Server.createTcpServer("-tcpPort", Integer.toString(FreePorts.find()), "-ifNotExists").start();
	}

	@AfterAll
	static void stopServer() {
		server.stop();
	}

	/**
	 * Wait until a thread of the H2 server waits for a lock of another transaction.
	 */
	@Override
	protected void awaitWaitingForLock(Duration timeout) {
		await().atMost(timeout)
			.pollInterval(Duration.ofMillis(1))
			.until(() -> Thread.getAllStackTraces()
				.values()
				.stream()
				.flatMap(Arrays::stream)
				.map((frame) -> frame.getClassName() + "." + frame.getMethodName())
				.anyMatch(H2JdbcFenceTests.LOCK_WAITS::contains));
	}

}
