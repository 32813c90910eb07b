package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Runs one real PostgreSQL server on a free loopback port, in a fresh cluster that trusts
 * every local connection, for tests that need a live database. No Docker and no installed
 * PostgreSQL are needed: {@link PostgresBinaries} falls back to binaries shipped in a
 * test dependency.
 * <p>
 * PostgreSQL refuses to run as root, so when the JVM runs as root the server runs as
 * another user (see {@link ServerUser}). The cluster is made with {@code initdb} in a
 * temp directory, without fsync, and the process never outlives the test JVM (see
 * {@link ManagedProcess}). {@link #close()} stops the server and deletes the directory.
 */
public final class PostgresServer implements AutoCloseable {

	private static final String USERNAME = "postgres";

	private static final String DATABASE = "postgres";

	private static final Duration INITDB_TIMEOUT = Duration.ofSeconds(60);

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);

	private static final int LOG_TAIL_LINES = 40;

	/**
	 * Server settings for short-lived test databases, on top of {@code -F} (no fsync).
	 */
	private static final List<String> SETTINGS = List.of("shared_buffers=32MB", "full_page_writes=off",
			"synchronous_commit=off", "jit=off");

	private final PostgresBinaries binaries;

	private final ServerUser user;

	private final Path workDir;

	private int port;

	private @Nullable ManagedProcess process;

	private PostgresServer(PostgresBinaries binaries, ServerUser user, Path workDir) {
		this.binaries = binaries;
		this.user = user;
		this.workDir = workDir;
	}

	/**
	 * Makes a cluster with {@code initdb} (trust authentication, UTF8), starts a server
	 * on a free port of {@code 127.0.0.1} and waits until it accepts connections.
	 * @return the running server
	 * @throws IllegalStateException if {@code initdb} fails or the server does not come
	 * up within 30 seconds; the message holds the end of their output
	 */
	public static PostgresServer start() {
		return start(PostgresBinaries.get());
	}

	/**
	 * Starts a server with the given binaries, as {@link #start()} does.
	 */
	static PostgresServer start(PostgresBinaries binaries) {
		ServerUser user = ServerUser.forThisJvm();
		user.requireReachable(binaries.directory());
		Path workDir = TempFiles.newWorkDirectory("postgres");
		PostgresServer server = new PostgresServer(binaries, user, workDir);
		try {
			user.handOver(workDir);
			server.initdb();
			FreePorts.launchServer("PostgreSQL", server::launch);
			return server;
		}
		catch (RuntimeException ex) {
			server.close();
			throw ex;
		}
	}

	/**
	 * Returns the JDBC URL of the server's {@code postgres} database.
	 * @return {@code jdbc:postgresql://127.0.0.1:port/postgres}
	 */
	public String jdbcUrl() {
		return "jdbc:postgresql://" + RedisServer.HOST + ":" + port() + "/" + DATABASE;
	}

	/**
	 * Returns the name of a superuser that can connect.
	 * @return {@code postgres}
	 */
	public String username() {
		return USERNAME;
	}

	/**
	 * Returns the password of {@link #username()}: any will do, as the server trusts
	 * every local connection.
	 * @return the empty string
	 */
	public String password() {
		return "";
	}

	/**
	 * Returns the port the server listens on.
	 * @return the port
	 */
	public synchronized int port() {
		return this.port;
	}

	/**
	 * Stops the server with a fast shutdown ({@code SIGINT}: open transactions are rolled
	 * back), killing it if it takes more than ten seconds, and deletes its data; safe to
	 * call more than once.
	 */
	@Override
	public synchronized void close() {
		if (this.process != null) {
			this.process.terminate("INT", STOP_TIMEOUT);
		}
		TempFiles.deleteRecursively(this.workDir);
	}

	@Override
	public String toString() {
		return "PostgreSQL " + this.binaries.version() + " at " + jdbcUrl();
	}

	/**
	 * Returns the server process, for tests of its lifecycle.
	 */
	synchronized ManagedProcess process() {
		if (this.process == null) {
			throw new IllegalStateException("PostgreSQL was never started");
		}
		return this.process;
	}

	/**
	 * Returns the folder of the cluster's data, for tests of its lifecycle.
	 */
	Path dataDirectory() {
		return this.workDir.resolve("data");
	}

	private void initdb() {
		Path log = this.workDir.resolve("initdb.log");
		ProcessBuilder builder = builder(log, this.binaries.initdb().toString(), "-D", dataDirectory().toString(), "-U",
				USERNAME, "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync");
		ManagedProcess initdb = ManagedProcess.start("initdb", builder, this.workDir);
		int exitCode = initdb.awaitExit(INITDB_TIMEOUT).orElseThrow(() -> {
			initdb.kill();
			return failure(this.binaries.initdb(), "did not finish within " + INITDB_TIMEOUT.toSeconds() + "s", log);
		});
		if (exitCode != 0) {
			throw failure(this.binaries.initdb(), "failed with exit code " + exitCode, log);
		}
	}

	/**
	 * Launches the server on {@code port} and waits until it accepts connections.
	 * @return {@code false} if the port was taken
	 */
	private boolean launch(int port) {
		this.port = port;
		List<String> arguments = new ArrayList<>(
				List.of(this.binaries.postgres().toString(), "-D", dataDirectory().toString(), "-p",
						String.valueOf(port), "-h", RedisServer.HOST, "-k", this.workDir.toString(), "-F"));
		SETTINGS.forEach((setting) -> arguments.addAll(List.of("-c", setting)));
		ProcessBuilder builder = builder(logFile(), arguments.toArray(String[]::new));
		this.process = ManagedProcess.start("postgres on port " + port, builder, this.workDir);
		return awaitConnections(this.process);
	}

	private ProcessBuilder builder(Path log, String... command) {
		return new ProcessBuilder(this.user.command(command)).directory(this.workDir.toFile())
			.redirectErrorStream(true)
			.redirectOutput(Redirect.to(log.toFile()));
	}

	private boolean awaitConnections(ManagedProcess started) {
		return switch (started.awaitReady(STARTUP_TIMEOUT,
				() -> PostgresProbe.acceptsConnections(this.port, USERNAME, PROBE_TIMEOUT))) {
			case READY -> true;
			case EXITED -> {
				if (tail(logFile()).contains("Address already in use")) {
					yield false;
				}
				throw startFailure("exited with code " + started.process().exitValue());
			}
			case TIMED_OUT -> {
				started.kill();
				throw startFailure("did not accept connections within " + STARTUP_TIMEOUT.toSeconds() + "s");
			}
		};
	}

	private Path logFile() {
		return this.workDir.resolve("postgres.log");
	}

	private IllegalStateException startFailure(String reason) {
		return failure(this.binaries.postgres(), "on port " + this.port + " " + reason, logFile());
	}

	private IllegalStateException failure(Path executable, String reason, Path log) {
		return new IllegalStateException(executable + " (run as " + this.user + ") " + reason
				+ "; the end of its output (" + log.getFileName() + "):\n" + tail(log));
	}

	private static String tail(Path log) {
		try {
			List<String> lines = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList();
			return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
		}
		catch (IOException ex) {
			return "(unreadable: " + ex + ")";
		}
	}

}
