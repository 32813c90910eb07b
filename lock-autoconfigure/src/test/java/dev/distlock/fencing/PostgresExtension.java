package dev.distlock.fencing;

import java.time.Duration;

import javax.sql.DataSource;

import dev.distlock.testsupport.PostgresServer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.awaitility.Awaitility.await;

/**
 * JUnit Jupiter extension that runs one {@link PostgresServer} for all tests of a class.
 * Register it on a static field; the test class's constructor may use it.
 */
final class PostgresExtension implements BeforeAllCallback, AfterAllCallback {

	private @Nullable PostgresServer server;

	/**
	 * Return the server of the current test class.
	 * @return the server
	 */
	PostgresServer server() {
		if (this.server == null) {
			throw new IllegalStateException("No PostgreSQL server: register PostgresExtension on a static field");
		}
		return this.server;
	}

	/**
	 * Return a new data source of the server's database.
	 * @return the data source
	 */
	DataSource dataSource() {
		return new DriverManagerDataSource(server().jdbcUrl(), server().username(), server().password());
	}

	/**
	 * Wait until a session of the server waits for a lock.
	 * @param timeout how long to wait at most
	 */
	void awaitSessionWaitingForLock(Duration timeout) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource());
		await().atMost(timeout)
			.pollInterval(Duration.ofMillis(10))
			.until(() -> jdbc.queryForObject("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
					Long.class) > 0);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.server = PostgresServer.start();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		server().close();
		this.server = null;
	}

}
