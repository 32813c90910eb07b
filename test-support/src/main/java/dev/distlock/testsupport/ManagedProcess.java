package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Runs a child process that never outlives the test JVM and can be signalled.
 * <p>
 * Every started process is killed, and its scratch files deleted, by a JVM shutdown hook
 * and, should the JVM die without running its hooks, by a companion reaper process that
 * is itself stopped as soon as the child exits. Scratch files are left alone while the
 * JVM lives: their owner deletes them when done.
 */
public final class ManagedProcess implements AutoCloseable {

	private static final Duration WAIT_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration SHUTDOWN_WAIT_TIMEOUT = Duration.ofSeconds(1);

	private static final long POLL_MILLIS = 20;

	private final String name;

	private final Process process;

	private final Process reaper;

	private final Path scratch;

	private ManagedProcess(String name, Process process, Process reaper, Path scratch) {
		this.name = name;
		this.process = process;
		this.reaper = reaper;
		this.scratch = scratch;
	}

	/**
	 * Starts the process described by {@code builder} and guards it against becoming an
	 * orphan.
	 * @param name a short description used in error messages
	 * @param builder the process to start
	 * @param scratch a temp file or directory of the process, such as its log, to delete
	 * if the JVM exits while the process is alive
	 * @return the started process
	 */
	public static ManagedProcess start(String name, ProcessBuilder builder, Path scratch) {
		Process process;
		try {
			process = builder.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + name + ": " + builder.command(), ex);
		}
		Process reaper;
		try {
			reaper = ProcessReaper.startCompanion(process.pid(), scratch);
		}
		catch (RuntimeException ex) {
			process.destroyForcibly();
			throw ex;
		}
		ManagedProcess managed = new ManagedProcess(name, process, reaper, scratch);
		ProcessReaper.track(managed);
		process.onExit().thenRun(managed::forget);
		return managed;
	}

	/**
	 * Returns the underlying process, for access to its standard streams.
	 * @return the process
	 */
	public Process process() {
		return this.process;
	}

	/**
	 * Returns the operating system id of the process.
	 * @return the pid
	 */
	public long pid() {
		return this.process.pid();
	}

	/**
	 * Tells whether the process is still alive (a paused process is alive).
	 * @return {@code true} until the process has exited
	 */
	public boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Freezes the process with {@code SIGSTOP} and, where {@code /proc} tells, waits
	 * until all its threads have stopped.
	 */
	public void pause() {
		signal("STOP");
		long deadline = System.nanoTime() + WAIT_TIMEOUT.toNanos();
		while (!ThreadStates.allStopped(pid())) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(this + " did not stop within " + WAIT_TIMEOUT + " of SIGSTOP");
			}
			Thread.onSpinWait();
		}
	}

	/**
	 * Lets a paused process continue with {@code SIGCONT}; does nothing to a dead one.
	 */
	public void resume() {
		if (isAlive()) {
			signal("CONT");
		}
	}

	/**
	 * Asks the process to exit with {@code SIGTERM} (resuming it first) and waits for it,
	 * killing it if it does not exit within {@code grace}.
	 * @param grace how long to wait for a graceful exit
	 */
	public void terminate(Duration grace) {
		resume();
		this.process.destroy();
		awaitExitOrKill(grace);
	}

	/**
	 * Asks the process to exit with the given signal (resuming it first) and waits for
	 * it, killing it if it does not exit within {@code grace}; does nothing but wait if
	 * it has already exited. Servers that treat signals differently need this:
	 * PostgreSQL, for one, shuts down at once on {@code SIGINT} but waits for its clients
	 * on {@code SIGTERM}.
	 * @param signal the signal's name without {@code SIG}, such as {@code INT}
	 * @param grace how long to wait for the process to exit
	 */
	public void terminate(String signal, Duration grace) {
		resume();
		if (isAlive()) {
			deliver(signal);
		}
		awaitExitOrKill(grace);
	}

	/**
	 * Kills the process with {@code SIGKILL} and waits until it is gone; does nothing if
	 * it has already exited. A paused process is killed as well.
	 */
	public void kill() {
		this.process.destroyForcibly();
		if (awaitExit(WAIT_TIMEOUT).isEmpty()) {
			throw new IllegalStateException(this + " survived SIGKILL for " + WAIT_TIMEOUT);
		}
		forget();
	}

	/**
	 * Waits for the process to exit.
	 * @param timeout how long to wait
	 * @return the exit code, or empty if the process is still running after the timeout
	 */
	public OptionalInt awaitExit(Duration timeout) {
		try {
			return this.process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)
					? OptionalInt.of(this.process.exitValue()) : OptionalInt.empty();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for " + this.name, ex);
		}
	}

	/**
	 * Polls {@code ready} every 20 milliseconds until it holds, the process exits or
	 * {@code timeout} passes, whichever comes first.
	 * @param timeout how long to wait
	 * @param ready tells whether the process is ready, such as a server that answers
	 * @return how the wait ended
	 */
	public Readiness awaitReady(Duration timeout, BooleanSupplier ready) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			if (!isAlive()) {
				return Readiness.EXITED;
			}
			if (ready.getAsBoolean()) {
				return Readiness.READY;
			}
			try {
				Thread.sleep(POLL_MILLIS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + this + " to be ready", ex);
			}
		}
		return Readiness.TIMED_OUT;
	}

	/**
	 * Kills the process if it is still alive; safe to call more than once.
	 */
	@Override
	public void close() {
		kill();
	}

	@Override
	public String toString() {
		return this.name + " (pid " + pid() + ")";
	}

	void destroyOnShutdown() {
		this.reaper.destroyForcibly();
		this.process.destroyForcibly();
		if (awaitExit(SHUTDOWN_WAIT_TIMEOUT).isPresent()) {
			try {
				TempFiles.deleteRecursively(this.scratch);
			}
			catch (UncheckedIOException ex) {
				// Best effort: the JVM is exiting and must clean up the other processes
			}
		}
	}

	private void forget() {
		ProcessReaper.untrack(this);
		this.reaper.destroyForcibly();
	}

	private void awaitExitOrKill(Duration grace) {
		if (awaitExit(grace).isEmpty()) {
			kill();
		}
		forget();
	}

	private void signal(String signal) {
		if (!isAlive()) {
			throw new IllegalStateException("Cannot send SIG" + signal + " to " + this + ": it has exited");
		}
		deliver(signal);
	}

	/**
	 * Sends a signal with {@code kill}; failing to send it is an error only while the
	 * process lives.
	 */
	private void deliver(String signal) {
		ProcessBuilder kill = new ProcessBuilder("sh", "-c", "kill -" + signal + " " + pid()).inheritIO();
		try {
			Process sender = kill.start();
			boolean sent = sender.waitFor(WAIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) && sender.exitValue() == 0;
			if (!sent) {
				sender.destroyForcibly();
			}
			if (!sent && isAlive()) {
				throw new IllegalStateException("Could not send SIG" + signal + " to " + this);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not send SIG" + signal + " to " + this, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while sending SIG" + signal + " to " + this, ex);
		}
	}

	/**
	 * How {@link #awaitReady(Duration, BooleanSupplier) waiting for a process to be
	 * ready} ended.
	 */
	public enum Readiness {

		/**
		 * The process is ready.
		 */
		READY,

		/**
		 * The process exited before it was ready.
		 */
		EXITED,

		/**
		 * The process was alive but not ready when the time was up.
		 */
		TIMED_OUT

	}

}
