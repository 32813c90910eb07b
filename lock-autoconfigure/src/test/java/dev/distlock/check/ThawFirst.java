package dev.distlock.check;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Lets one thread of a frozen worker JVM run before its others once the JVM is thawed:
 * pins every thread of the JVM to one CPU and gives that thread the lowest real-time
 * priority ({@code taskset} and {@code chrt} of util-linux), so that no other thread of
 * the JVM runs while it is runnable. A thread the thaw wakes from a wait that ran out
 * during the freeze would otherwise run beside it on another CPU, or before it on the
 * same one, as the scheduler favours a thread that slept over one that spun. It is
 * applied while the JVM is frozen ({@link #apply()}): a real-time thread that spins on
 * the one CPU of its JVM keeps the JVM's other threads from taking a {@code SIGSTOP}.
 * {@link #close()} gives the JVM its CPUs back; the thread keeps its priority until it
 * ends. Where the tools or the right to use them are missing, it changes nothing, and the
 * threads race as they would.
 */
final class ThawFirst implements AutoCloseable {

	/** How long one call of a tool may take. */
	private static final long TOOL_BOUND_MILLIS = 2000;

	/** How many characters of a thread's name Linux keeps as its {@code comm}. */
	private static final int COMM_LENGTH = 15;

	private final long pid;

	private final String comm;

	private Optional<String> pinnedFrom = Optional.empty();

	/**
	 * Create the order of the given JVM's thread of the given name, not applied yet.
	 * @param pid the JVM's process id
	 * @param threadName the thread's name
	 */
	ThawFirst(long pid, String threadName) {
		this.pid = pid;
		this.comm = threadName.substring(0, Math.min(COMM_LENGTH, threadName.length()));
	}

	/**
	 * Pin the frozen JVM to the first of its CPUs and give its thread the lowest
	 * real-time priority, if the tools let it.
	 */
	void apply() {
		Optional<String> cpus = allowedCpus(this.pid);
		Optional<String> tid = threadId(this.pid, this.comm);
		if (cpus.isEmpty() || tid.isEmpty()
				|| !run("taskset", "-a", "-p", "-c", cpus.get().split("[,-]")[0], Long.toString(this.pid))) {
			return;
		}
		this.pinnedFrom = cpus;
		run("chrt", "-f", "-p", "1", tid.get());
	}

	@Override
	public void close() {
		this.pinnedFrom.ifPresent((cpus) -> run("taskset", "-a", "-p", "-c", cpus, Long.toString(this.pid)));
	}

	/**
	 * Return the CPUs the given process may run on ({@code Cpus_allowed_list} of its
	 * status), if it can be read.
	 */
	private static Optional<String> allowedCpus(long pid) {
		try (Stream<String> lines = Files.lines(Path.of("/proc", Long.toString(pid), "status"))) {
			return lines.filter((line) -> line.startsWith("Cpus_allowed_list:"))
				.map((line) -> line.substring(line.indexOf(':') + 1).trim())
				.findFirst();
		}
		catch (IOException ex) {
			return Optional.empty();
		}
	}

	/**
	 * Return the id of the given process's thread whose {@code comm} is the given name,
	 * if there is one.
	 */
	private static Optional<String> threadId(long pid, String comm) {
		Path tasks = Path.of("/proc", Long.toString(pid), "task");
		try (Stream<Path> ids = Files.list(tasks)) {
			return ids.filter((id) -> comm.equals(readComm(id))).map((id) -> id.getFileName().toString()).findFirst();
		}
		catch (IOException ex) {
			return Optional.empty();
		}
	}

	private static String readComm(Path task) {
		try {
			return Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).trim();
		}
		catch (IOException ex) {
			return "";
		}
	}

	/**
	 * Run a tool and return whether it succeeded within {@link #TOOL_BOUND_MILLIS}.
	 */
	private static boolean run(String... command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (!process.waitFor(TOOL_BOUND_MILLIS, TimeUnit.MILLISECONDS)) {
				process.destroyForcibly();
				return false;
			}
			return process.exitValue() == 0;
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
