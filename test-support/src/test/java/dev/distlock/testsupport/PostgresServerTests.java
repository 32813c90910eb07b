package dev.distlock.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for {@link PostgresServer} against real PostgreSQL servers, through the JDBC
 * driver.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresServerTests {

	@Test
	void startsAServerThatStoresAndReadsRowsThroughJdbc() throws SQLException {
		try (PostgresServer server = PostgresServer.start(); Connection connection = connect(server)) {
			try (Statement statement = connection.createStatement()) {
				statement.execute("CREATE TABLE locks (name TEXT PRIMARY KEY, fence BIGINT NOT NULL)");
				statement.executeUpdate("INSERT INTO locks VALUES ('orders', 1), ('invoices', 42)");
			}
			assertThat(query(connection, "SELECT name || '=' || fence FROM locks ORDER BY fence"))
				.containsExactly("orders=1", "invoices=42");
			assertThat(query(connection, "SHOW server_version")).singleElement()
				.asString()
				.startsWith(PostgresBinaries.get().version());
			assertThat(query(connection, "SHOW server_encoding")).containsExactly("UTF8");
		}
	}

	@Test
	void connectsAsASuperuserWithTheGivenCredentials() throws SQLException {
		try (PostgresServer server = PostgresServer.start(); Connection connection = connect(server)) {
			assertThat(server.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + server.port() + "/postgres");
			assertThat(query(connection,
					"SELECT current_user || ' ' || usesuper FROM pg_user WHERE " + "usename = current_user"))
				.containsExactly(server.username() + " true");
		}
	}

	@Test
	void twoServersAtOnceListenOnDifferentPortsWithTheirOwnData() throws SQLException {
		try (PostgresServer first = PostgresServer.start();
				PostgresServer second = PostgresServer.start();
				Connection toFirst = connect(first);
				Connection toSecond = connect(second)) {
			assertThat(first.port()).isNotEqualTo(second.port());
			try (Statement statement = toFirst.createStatement()) {
				statement.execute("CREATE TABLE only_in_first (id INT)");
			}
			assertThat(query(toSecond, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_first'"))
				.containsExactly("0");
		}
	}

	@Test
	void closeStopsTheProcessFreesThePortAndDeletesTheData() throws IOException {
		try (PostgresServer server = PostgresServer.start()) {
			long pid = server.process().pid();
			Path dataDirectory = server.dataDirectory();
			assertThat(dataDirectory.resolve("PG_VERSION")).exists();
			server.close();
			assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
			assertThat(dataDirectory).doesNotExist();
			try (ServerSocket socket = new ServerSocket(server.port(), 1, InetAddress.getByName("127.0.0.1"))) {
				assertThat(socket.getLocalPort()).isEqualTo(server.port());
			}
		}
	}

	@Test
	void closeShutsDownAtOnceWhileClientsAreConnected() throws SQLException {
		try (PostgresServer server = PostgresServer.start(); Connection connection = connect(server)) {
			connection.setAutoCommit(false);
			try (Statement statement = connection.createStatement()) {
				statement.execute("CREATE TABLE pending (id INT)");
			}
			server.close();
			assertThat(server.process().isAlive()).isFalse();
			assertThat(server.process().awaitExit(Duration.ZERO)).as("exit code: 0 unless killed").hasValue(0);
		}
	}

	@Test
	void startsTheBinariesOfTheTestDependencyWhateverIsInstalled() throws SQLException {
		String bundle = EmbeddedPostgresBinaries.resource(Platform.current());
		assumeTrue(getClass().getClassLoader().getResource(bundle) != null, "no " + bundle + " on the classpath");
		PostgresBinaries embedded = PostgresBinaries.embedded();
		assertThat(embedded.directory()).startsWith(Path.of(System.getProperty("java.io.tmpdir")));
		try (PostgresServer server = PostgresServer.start(embedded); Connection connection = connect(server)) {
			assertThat(query(connection, "SHOW server_version")).containsExactly(embedded.version());
		}
	}

	@Test
	void runsTheServerAsAnUnprivilegedUserWhenTheJvmIsRoot() throws IOException {
		assumeTrue(ServerUser.forThisJvm().isOtherThanJvmUser(), "the JVM does not run as root");
		int unprivileged = Integer.parseInt(Executables.output("id", "-u", ServerUser.UNPRIVILEGED));
		try (PostgresServer server = PostgresServer.start()) {
			assertThat(Files.getAttribute(Path.of("/proc", String.valueOf(server.process().pid())), "unix:uid"))
				.isEqualTo(unprivileged);
			assertThat(Files.getAttribute(server.dataDirectory(), "unix:uid")).isEqualTo(unprivileged);
		}
	}

	@Test
	void initdbFailureSaysWhyWithTheEndOfItsOutput() throws IOException {
		Path bin = fakeInstallation(Files.createTempDirectory("distlock-postgres-bin-"));
		try {
			assertThatIllegalStateException().isThrownBy(() -> PostgresServer.start(PostgresBinaries.in(bin)).close())
				.withMessageStartingWith(
						bin.resolve("initdb") + " (run as " + ServerUser.forThisJvm() + ") failed with exit code 3")
				.withMessageContaining("initdb cannot run here");
		}
		finally {
			TempFiles.deleteRecursively(bin);
		}
	}

	@Test
	void refusesBinariesTheUnprivilegedUserCannotReachWhenTheJvmIsRoot() throws IOException {
		assumeTrue(ServerUser.forThisJvm().isOtherThanJvmUser(), "the JVM does not run as root");
		Path closed = Files.createTempDirectory("distlock-postgres-closed-");
		try {
			Path bin = fakeInstallation(Files.createDirectory(closed.resolve("bin")));
			assertThatIllegalStateException().isThrownBy(() -> PostgresServer.start(PostgresBinaries.in(bin)).close())
				.withMessageContaining("cannot reach " + bin)
				.withMessageContaining(closed + " (rwx------) does not let other users through");
		}
		finally {
			TempFiles.deleteRecursively(closed);
		}
	}

	/**
	 * Fills {@code bin} with an {@code initdb} and a {@code postgres} that tell their
	 * version but fail at anything else.
	 */
	private static Path fakeInstallation(Path bin) throws IOException {
		Files.setPosixFilePermissions(bin, TarXzArchive.permissions(0755));
		for (String executable : List.of("initdb", "postgres")) {
			Path script = Files.writeString(bin.resolve(executable),
					"#!/bin/sh\n[ \"$1\" = --version ] && echo '" + executable + " (PostgreSQL) 17.6' && exit 0\n"
							+ "echo '" + executable + " cannot run here' >&2\nexit 3\n");
			Files.setPosixFilePermissions(script, TarXzArchive.permissions(0755));
		}
		return bin;
	}

	private static Connection connect(PostgresServer server) throws SQLException {
		return DriverManager.getConnection(server.jdbcUrl(), server.username(), server.password());
	}

	private static List<String> query(Connection connection, String sql) throws SQLException {
		List<String> rows = new ArrayList<>();
		try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
			while (result.next()) {
				rows.add(result.getString(1));
			}
		}
		return rows;
	}

}
