package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Reads the scheduling states of a process's threads from Linux's {@code /proc}.
 * <p>
 * {@code SIGSTOP} stops a multi-threaded process asynchronously: {@code kill} returns
 * before every thread has stopped, and a thread woken by input in the meantime still
 * runs. This class lets a caller wait for the stop to complete.
 */
final class ThreadStates {

	private static final String NOT_RUNNING = "TtZX";

	private ThreadStates() {
	}

	/**
	 * Tells whether no thread of the process runs any more: all are stopped or gone.
	 * Without {@code /proc} (for example on macOS) this cannot be known and is assumed.
	 */
	static boolean allStopped(long pid) {
		Path tasks = Path.of("/proc", String.valueOf(pid), "task");
		if (!Files.isDirectory(tasks)) {
			return true;
		}
		try (Stream<Path> threads = Files.list(tasks)) {
			return threads.allMatch(ThreadStates::isStopped);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not list the threads of process " + pid, ex);
		}
	}

	private static boolean isStopped(Path thread) {
		String stat;
		try {
			stat = Files.readString(thread.resolve("stat"));
		}
		catch (NoSuchFileException ex) {
			return true;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + thread, ex);
		}
		// The state follows the command name, which is in parentheses and may hold any
		// character
		char state = stat.charAt(stat.lastIndexOf(')') + 2);
		return NOT_RUNNING.indexOf(state) >= 0;
	}

}
