package dev.distlock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Guarantees that {@link ManagedProcess managed processes} die with the test JVM.
 * <p>
 * A JVM shutdown hook kills every live process and deletes its scratch files on a normal
 * exit, and a companion shell process per child does the same when the JVM disappears
 * without running its hooks (for example after {@code SIGKILL}).
 */
final class ProcessReaper {

	private static final String WATCH_SCRIPT = "while kill -0 \"$1\" 2>/dev/null && kill -0 \"$2\" 2>/dev/null; "
			+ "do sleep 1; done; kill -0 \"$1\" 2>/dev/null || { kill -9 \"$2\" 2>/dev/null; sleep 1; rm -rf \"$3\"; }";

	private static final Set<ManagedProcess> LIVE = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(
					new Thread(() -> LIVE.forEach(ManagedProcess::destroyOnShutdown), "distlock-process-reaper"));
	}

	private ProcessReaper() {
	}

	/**
	 * Starts a companion process that kills {@code childPid} and deletes {@code scratch}
	 * once this JVM is gone.
	 */
	static Process startCompanion(long childPid, Path scratch) {
		ProcessBuilder builder = new ProcessBuilder("sh", "-c", WATCH_SCRIPT, "distlock-reaper",
				String.valueOf(ProcessHandle.current().pid()), String.valueOf(childPid), scratch.toString())
			.redirectInput(Redirect.from(new File("/dev/null")))
			.redirectOutput(Redirect.DISCARD)
			.redirectError(Redirect.DISCARD);
		try {
			return builder.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start reaper for process " + childPid, ex);
		}
	}

	/**
	 * Makes the shutdown hook kill the given process.
	 */
	static void track(ManagedProcess process) {
		LIVE.add(process);
	}

	/**
	 * Stops the shutdown hook from handling the given process.
	 */
	static void untrack(ManagedProcess process) {
		LIVE.remove(process);
	}

}
