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
 * Runs one real {@code redis-server} process on a free loopback port, without
 * persistence, for tests that need a live server they can stop, kill, pause or restart.
 * <p>
 * The process never outlives the test JVM (see {@link ManagedProcess}). Its output goes
 * to a log file in a temp directory that is deleted on {@link #close()}.
 */
public final class RedisServer implements AutoCloseable {

	/**
	 * The address the server binds to.
	 */
	static final String HOST = "127.0.0.1";

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration PING_TIMEOUT = Duration.ofMillis(500);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	private final RedisServerBinary binary;

	private final List<String> extraArgs;

	private final @Nullable String password;

	private final @Nullable String sentinelConfig;

	private final Path workDir;

	private final @Nullable SteppableClock clock;

	private int port;

	private int launches;

	private @Nullable ManagedProcess process;

	private RedisServer(RedisServerBinary binary, List<String> extraArgs, @Nullable String sentinelConfig, Path workDir,
			@Nullable SteppableClock clock) {
		this.binary = binary;
		this.extraArgs = extraArgs;
		this.password = passwordIn(extraArgs);
		this.sentinelConfig = sentinelConfig;
		this.workDir = workDir;
		this.clock = clock;
	}

	/**
	 * Starts a server on a free port and waits until it answers {@code PING}.
	 * @param extraArgs further {@code redis-server} arguments, such as
	 * {@code "--requirepass", "secret"} or {@code "--replicaof", "127.0.0.1", "6380"}
	 * @return the running server
	 * @throws IllegalStateException if the server does not come up; the message holds its
	 * output
	 */
	public static RedisServer start(String... extraArgs) {
		return start(List.of(extraArgs), null, false);
	}

	/**
	 * Starts a server whose wall clock {@link #stepClock(Duration) can be stepped}, on a
	 * free port, and waits until it answers {@code PING}. The server is the
	 * {@code redis-server} bundled in the {@code com.github.codemonstur:embedded-redis}
	 * test dependency, run with libfaketime (the package {@code libfaketime}), which does
	 * not load into every build of the server.
	 * @param extraArgs further {@code redis-server} arguments
	 * @return the running server
	 * @throws IllegalStateException if libfaketime is not installed, or the server does
	 * not come up
	 * @see #canStepClock()
	 */
	public static RedisServer startWithSteppableClock(String... extraArgs) {
		return start(List.of(extraArgs), null, true);
	}

	/**
	 * Tells whether this machine can run a server whose clock can be stepped: whether
	 * libfaketime is installed.
	 * @return {@code true} if {@link #startWithSteppableClock} can start one
	 */
	public static boolean canStepClock() {
		return SteppableClock.isAvailable();
	}

	/**
	 * Starts a Sentinel on a free port that monitors {@code primary} under
	 * {@code masterName} with a quorum of 2, deems it down after one second without an
	 * answer and waits until it answers {@code PING}.
	 * @param masterName the name Sentinel clients ask for, such as {@code mymaster}
	 * @param primary the primary to monitor
	 * @return the running Sentinel
	 */
	public static RedisServer startSentinel(String masterName, RedisServer primary) {
		String config = String.join("\n", "sentinel monitor " + masterName + " " + HOST + " " + primary.port() + " 2",
				"sentinel down-after-milliseconds " + masterName + " 1000",
				"sentinel failover-timeout " + masterName + " 5000", "");
		return start(List.of(), config, false);
	}

	private static RedisServer start(List<String> extraArgs, @Nullable String sentinelConfig, boolean steppableClock) {
		Path workDir = TempFiles.newWorkDirectory("redis-server");
		RedisServer server;
		try {
			server = steppableClock
					? new RedisServer(RedisServerBinary.embedded(), extraArgs, null, workDir,
							SteppableClock.in(workDir))
					: new RedisServer(RedisServerBinary.get(), extraArgs, sentinelConfig, workDir, null);
		}
		catch (RuntimeException ex) {
			TempFiles.deleteRecursively(workDir);
			throw ex;
		}
		try {
			FreePorts.launchServer("redis-server", server::launch);
			return server;
		}
		catch (RuntimeException ex) {
			server.close();
			throw ex;
		}
	}

	/**
	 * Returns the host the server listens on.
	 * @return {@code 127.0.0.1}
	 */
	public String host() {
		return HOST;
	}

	/**
	 * Returns the port the server listens on; it stays the same across restarts.
	 * @return the port
	 */
	public synchronized int port() {
		return this.port;
	}

	/**
	 * Returns the server's URI, without credentials.
	 * @return {@code redis://127.0.0.1:port}
	 */
	public String uri() {
		return "redis://" + HOST + ":" + port();
	}

	/**
	 * Returns the pid of the current server process.
	 * @return the pid
	 */
	public synchronized long pid() {
		return process().pid();
	}

	/**
	 * Returns the file holding the current server process's output.
	 * @return the log file
	 */
	public synchronized Path logFile() {
		return this.workDir.resolve("redis-" + this.launches + ".log");
	}

	/**
	 * Tells whether the server process is alive (a paused server is alive).
	 * @return {@code true} if the process has not exited
	 */
	public synchronized boolean isRunning() {
		return this.process != null && this.process.isAlive();
	}

	/**
	 * Shuts the server down gracefully with {@code SIGTERM} and waits for it to exit.
	 */
	public synchronized void stop() {
		process().terminate(STOP_TIMEOUT);
	}

	/**
	 * Kills the server with {@code SIGKILL} and waits for it to exit.
	 */
	public synchronized void kill() {
		process().kill();
	}

	/**
	 * Freezes the server with {@code SIGSTOP}: connections stay open but nothing is
	 * answered until {@link #resume()}.
	 */
	public synchronized void pause() {
		process().pause();
	}

	/**
	 * Lets a paused server continue with {@code SIGCONT}.
	 */
	public synchronized void resume() {
		process().resume();
	}

	/**
	 * Starts the server again on the same port with the same arguments and no data,
	 * killing the current process first if it is still alive, and waits until it answers
	 * {@code PING}.
	 * @throws IllegalStateException if the server does not come up, for example because
	 * another process took the port
	 */
	public synchronized void restart() {
		process().kill();
		if (!launch(this.port)) {
			throw new IllegalStateException(
					"Cannot restart redis-server: port " + this.port + " is taken; log " + logFile() + ":\n" + log());
		}
	}

	/**
	 * Steps the server's wall clock, and so its {@code TIME} and when its keys expire, by
	 * the given time at once, back when negative, from wherever earlier steps left it;
	 * its monotonic clock stays real. The clock stays stepped across restarts.
	 * @param step how far to step, such as {@code Duration.ofSeconds(-5)} to step back
	 * @throws IllegalStateException if the server was not started by
	 * {@link #startWithSteppableClock}
	 */
	public void stepClock(Duration step) {
		if (this.clock == null) {
			throw new IllegalStateException(
					"The clock of " + this + " cannot be stepped: start the server with startWithSteppableClock");
		}
		this.clock.step(step);
	}

	/**
	 * Tells whether the server's clock can be stepped: whether it was started by
	 * {@link #startWithSteppableClock}.
	 * @return {@code true} if {@link #stepClock(Duration)} steps its clock
	 */
	public boolean hasSteppableClock() {
		return this.clock != null;
	}

	/**
	 * Returns how far the server's wall clock was stepped from real time, behind when
	 * negative.
	 * @return the sum of the steps, zero when the clock was never stepped
	 */
	public Duration clockOffset() {
		return (this.clock != null) ? this.clock.offset() : Duration.ZERO;
	}

	/**
	 * Deletes every key of every database with {@code FLUSHALL}.
	 */
	public synchronized void flushAll() {
		String reply;
		try {
			reply = RawRedisCommand.send(this.port, this.password, COMMAND_TIMEOUT, "FLUSHALL");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("FLUSHALL failed on " + uri(), ex);
		}
		if (!reply.equals("+OK")) {
			throw new IllegalStateException("FLUSHALL failed on " + uri() + ": " + reply);
		}
	}

	/**
	 * Kills the server (paused or not) and deletes its temp directory; safe to call more
	 * than once.
	 */
	@Override
	public synchronized void close() {
		if (this.process != null) {
			this.process.close();
		}
		TempFiles.deleteRecursively(this.workDir);
	}

	@Override
	public String toString() {
		return "redis-server " + this.binary.version() + " at " + uri();
	}

	private ManagedProcess process() {
		if (this.process == null) {
			throw new IllegalStateException("redis-server was never started");
		}
		return this.process;
	}

	/**
	 * Launches a process on {@code port} and waits for it to answer.
	 * @return {@code false} if the port was taken
	 */
	private boolean launch(int port) {
		this.port = port;
		this.launches++;
		Path dataDir = emptyDataDir();
		List<String> command = new ArrayList<>(List.of(this.binary.path().toString()));
		if (this.sentinelConfig != null) {
			command.addAll(List.of(sentinelConfigFile().toString(), "--sentinel"));
		}
		command.addAll(List.of("--port", String.valueOf(port), "--bind", HOST, "--protected-mode", "no", "--save", "",
				"--appendonly", "no", "--dir", dataDir.toString()));
		command.addAll(this.extraArgs);
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(Redirect.to(logFile().toFile()));
		if (this.clock != null) {
			builder.environment().putAll(this.clock.environment());
		}
		this.process = ManagedProcess.start("redis-server on port " + port, builder, this.workDir);
		return awaitPing(this.process);
	}

	private boolean awaitPing(ManagedProcess started) {
		return switch (started.awaitReady(STARTUP_TIMEOUT, this::answersPing)) {
			case READY -> true;
			case EXITED -> {
				if (log().contains("Address already in use")) {
					yield false;
				}
				throw startFailure("exited with code " + started.process().exitValue());
			}
			case TIMED_OUT -> {
				started.kill();
				throw startFailure("did not answer PING within " + STARTUP_TIMEOUT.toSeconds() + "s");
			}
		};
	}

	private boolean answersPing() {
		try {
			return RawRedisCommand.send(this.port, this.password, PING_TIMEOUT, "PING").equals("+PONG");
		}
		catch (IOException ex) {
			return false;
		}
	}

	private IllegalStateException startFailure(String reason) {
		return new IllegalStateException(
				this.binary.path() + " on port " + this.port + " " + reason + "; log " + logFile() + ":\n" + log());
	}

	private String log() {
		try {
			return Files.readString(logFile(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(unreadable: " + ex + ")";
		}
	}

	/**
	 * Return the Sentinel's configuration file, written on its first launch; the Sentinel
	 * rewrites it as it learns the group, so a restarted Sentinel knows what it learned.
	 */
	private Path sentinelConfigFile() {
		Path file = this.workDir.resolve("sentinel.conf");
		if (Files.exists(file)) {
			return file;
		}
		try {
			return Files.writeString(file, this.sentinelConfig, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write " + file, ex);
		}
	}

	private Path emptyDataDir() {
		Path dataDir = this.workDir.resolve("data");
		TempFiles.deleteRecursively(dataDir);
		try {
			return Files.createDirectories(dataDir);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create " + dataDir, ex);
		}
	}

	private static @Nullable String passwordIn(List<String> args) {
		int index = args.indexOf("--requirepass");
		return (index >= 0 && index + 1 < args.size()) ? args.get(index + 1) : null;
	}

}
