package dev.distlock.testsupport;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Runs another JVM with the test classpath, for example a rival lock holder, and talks to
 * it through its standard streams.
 * <p>
 * Standard output is collected line by line; standard error goes to a log file. The JVM
 * never outlives the test JVM (see {@link ManagedProcess}).
 */
public final class RivalJvm implements AutoCloseable {

	private final ManagedProcess process;

	private final Path stderrLog;

	private final Writer stdin;

	private final List<String> lines = new ArrayList<>();

	private boolean outputClosed;

	private RivalJvm(ManagedProcess process, Path stderrLog) {
		this.process = process;
		this.stderrLog = stderrLog;
		this.stdin = new BufferedWriter(
				new OutputStreamWriter(process.process().getOutputStream(), StandardCharsets.UTF_8));
		Thread reader = new Thread(this::collectOutput, "rival-jvm-" + process.pid() + "-stdout");
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Starts a JVM running {@code mainClass} with the given arguments.
	 * @param mainClass a class on the test classpath with a {@code main} method
	 * @param args the program arguments
	 * @return the running JVM
	 */
	public static RivalJvm start(Class<?> mainClass, String... args) {
		return builder(mainClass).args(args).start();
	}

	/**
	 * Returns a builder for a JVM running {@code mainClass}, to add system properties or
	 * JVM options.
	 * @param mainClass a class on the test classpath with a {@code main} method
	 * @return the builder
	 */
	public static Builder builder(Class<?> mainClass) {
		return new Builder(mainClass);
	}

	/**
	 * Returns the pid of the JVM.
	 * @return the pid
	 */
	public long pid() {
		return this.process.pid();
	}

	/**
	 * Returns the lines printed to standard output so far.
	 * @return a snapshot of the lines
	 */
	public List<String> lines() {
		synchronized (this.lines) {
			return List.copyOf(this.lines);
		}
	}

	/**
	 * Waits for the first line printed to standard output that starts with
	 * {@code prefix}.
	 * @param prefix the start of the wanted line
	 * @param timeout how long to wait
	 * @return the line
	 * @throws AssertionError if no such line appears in time; the message holds all
	 * output
	 */
	public String awaitLine(String prefix, Duration timeout) {
		return awaitLine((line) -> line.startsWith(prefix), timeout);
	}

	/**
	 * Waits for the first line printed to standard output that matches {@code condition}.
	 * @param condition the wanted line
	 * @param timeout how long to wait
	 * @return the line
	 * @throws AssertionError if no such line appears in time or the JVM closes its output
	 * first; the message holds all output
	 */
	public String awaitLine(Predicate<String> condition, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.lines) {
			int checked = 0;
			while (true) {
				for (; checked < this.lines.size(); checked++) {
					if (condition.test(this.lines.get(checked))) {
						return this.lines.get(checked);
					}
				}
				long remaining = deadline - System.nanoTime();
				if (this.outputClosed || remaining <= 0) {
					throw new AssertionError(this
							+ (this.outputClosed ? " closed its output"
									: " printed nothing in " + timeout.toMillis() + " ms")
							+ " that matches; output so far:\n" + output());
				}
				waitForOutput(remaining);
			}
		}
	}

	/**
	 * Writes a line to the JVM's standard input.
	 * @param line the line, without line terminator
	 */
	public void send(String line) {
		synchronized (this.stdin) {
			try {
				this.stdin.write(line);
				this.stdin.write('\n');
				this.stdin.flush();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not send '" + line + "' to " + this, ex);
			}
		}
	}

	/**
	 * Kills the JVM with {@code SIGKILL}, so that no shutdown hook or finally block runs,
	 * and waits for it to exit.
	 */
	public void kill() {
		this.process.kill();
	}

	/**
	 * Freezes the JVM with {@code SIGSTOP}.
	 */
	public void pause() {
		this.process.pause();
	}

	/**
	 * Lets a paused JVM continue with {@code SIGCONT}.
	 */
	public void resume() {
		this.process.resume();
	}

	/**
	 * Waits for the JVM to exit.
	 * @param timeout how long to wait
	 * @return the exit code
	 * @throws AssertionError if the JVM is still running after the timeout; the message
	 * holds all output
	 */
	public int awaitExit(Duration timeout) {
		return this.process.awaitExit(timeout)
			.orElseThrow(() -> new AssertionError(
					this + " still runs after " + timeout.toMillis() + " ms; output so far:\n" + output()));
	}

	/**
	 * Kills the JVM if it is still alive and deletes its standard error log; safe to call
	 * more than once.
	 */
	@Override
	public void close() {
		this.process.close();
		try {
			this.stdin.close();
		}
		catch (IOException ex) {
			// The JVM is gone: nothing can read what was left unsent
		}
		TempFiles.deleteRecursively(this.stderrLog);
	}

	@Override
	public String toString() {
		return this.process.toString();
	}

	private void collectOutput() {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.process.process().getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = reader.readLine(); line != null; line = reader.readLine()) {
				synchronized (this.lines) {
					this.lines.add(line);
					this.lines.notifyAll();
				}
			}
		}
		catch (IOException ex) {
			// The stream was closed: treated like the end of the output
		}
		finally {
			synchronized (this.lines) {
				this.outputClosed = true;
				this.lines.notifyAll();
			}
		}
	}

	private void waitForOutput(long nanos) {
		try {
			TimeUnit.NANOSECONDS.timedWait(this.lines, nanos);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for output of " + this, ex);
		}
	}

	private String output() {
		String stderr;
		try {
			stderr = Files.readString(this.stderrLog, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			stderr = "(unreadable: " + ex + ")";
		}
		return "--- stdout ---\n" + String.join("\n", lines()) + "\n--- stderr (" + this.stderrLog + ") ---\n" + stderr;
	}

	/**
	 * Builds a {@link RivalJvm} with system properties and JVM options.
	 */
	public static final class Builder {

		private final Class<?> mainClass;

		private final Map<String, String> systemProperties = new LinkedHashMap<>();

		private final List<String> jvmOptions = new ArrayList<>();

		private final List<String> args = new ArrayList<>();

		private Builder(Class<?> mainClass) {
			this.mainClass = mainClass;
		}

		/**
		 * Adds a system property, passed as {@code -Dname=value}.
		 * @param name the property name
		 * @param value the property value
		 * @return this builder
		 */
		public Builder systemProperty(String name, String value) {
			this.systemProperties.put(name, value);
			return this;
		}

		/**
		 * Adds JVM options, such as {@code -Xmx64m}.
		 * @param options the options
		 * @return this builder
		 */
		public Builder jvmOptions(String... options) {
			this.jvmOptions.addAll(List.of(options));
			return this;
		}

		/**
		 * Adds program arguments.
		 * @param args the arguments
		 * @return this builder
		 */
		public Builder args(String... args) {
			this.args.addAll(List.of(args));
			return this;
		}

		/**
		 * Starts the JVM.
		 * @return the running JVM
		 */
		public RivalJvm start() {
			List<String> command = new ArrayList<>();
			command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
			command.add("-Dfile.encoding=UTF-8");
			command.add("-Dstdout.encoding=UTF-8");
			command.addAll(this.jvmOptions);
			this.systemProperties.forEach((name, value) -> command.add("-D" + name + "=" + value));
			command.add(this.mainClass.getName());
			command.addAll(this.args);
			Path stderrLog;
			try {
				stderrLog = Files.createTempFile("distlock-rival-", ".log");
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not create a log file for a rival JVM", ex);
			}
			ProcessBuilder builder = new ProcessBuilder(command).redirectError(Redirect.appendTo(stderrLog.toFile()));
			builder.environment().put("CLASSPATH", System.getProperty("java.class.path"));
			return new RivalJvm(ManagedProcess.start("rival JVM " + this.mainClass.getName(), builder, stderrLog),
					stderrLog);
		}

	}

}
