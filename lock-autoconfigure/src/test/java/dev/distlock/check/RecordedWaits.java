package dev.distlock.check;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The acquisitions of one worker JVM: each recorded as a {@code WAITING} line when it
 * begins and a {@code WAIT} line when it returns ({@code outcome} {@code acquired},
 * {@code timeout} or the type of the exception it threw; {@code causes} the class names
 * of that exception and its causes, outermost first; {@code interrupted} whether the
 * thread was interrupted: its interrupt flag set when the acquisition began or ended, or
 * an {@link InterruptedException} among the causes), and those in progress kept by
 * thread, so that a fault can be aimed at a thread or a JVM that waits for a lock.
 */
final class RecordedWaits {

	/** How many causes of a failure are recorded at most, against a cycle of causes. */
	private static final int MAX_CAUSES = 16;

	private final History history;

	private final Map<Thread, String> inProgress = new ConcurrentHashMap<>();

	RecordedWaits(History history) {
		this.history = history;
	}

	/**
	 * Run one acquisition of a lock on the current thread and record it.
	 * @param <T> what the acquisition returns
	 * @param name the lock's name
	 * @param api how it acquires, such as {@link WorkerOps#WRITE}
	 * @param waitTime how long it may wait
	 * @param acquisition the acquisition
	 * @param acquired whether what it returned is a hold
	 * @return what the acquisition returned
	 */
	<T> T record(String name, String api, Duration waitTime, Supplier<T> acquisition, Predicate<T> acquired) {
		String thread = Thread.currentThread().getName();
		long start = History.now();
		this.history.record("WAITING", "name", name, "api", api, "thread", thread, "start", start);
		String outcome = "timeout";
		List<String> causes = List.of();
		boolean interrupted = Thread.currentThread().isInterrupted();
		this.inProgress.put(Thread.currentThread(), name);
		try {
			T result = acquisition.get();
			if (acquired.test(result)) {
				outcome = "acquired";
			}
			return result;
		}
		catch (RuntimeException | Error ex) {
			outcome = ex.getClass().getSimpleName();
			causes = causes(ex);
			throw ex;
		}
		finally {
			this.inProgress.remove(Thread.currentThread());
			interrupted |= Thread.currentThread().isInterrupted()
					|| causes.contains(InterruptedException.class.getName());
			this.history.record("WAIT", "name", name, "api", api, "thread", thread, "wait", waitTime.toMillis(),
					"start", start, "end", History.now(), "outcome", outcome, "causes", String.join(",", causes),
					"interrupted", interrupted);
		}
	}

	/**
	 * Return the class names of a failure and its causes, outermost first.
	 * @param failure the failure
	 * @return the names
	 */
	static List<String> causes(Throwable failure) {
		List<String> causes = new ArrayList<>();
		for (Throwable cause = failure; cause != null && causes.size() < MAX_CAUSES; cause = cause.getCause()) {
			causes.add(cause.getClass().getName());
		}
		return causes;
	}

	/**
	 * Return the names of the locks being acquired now.
	 * @return the names, sorted
	 */
	Set<String> names() {
		return new TreeSet<>(this.inProgress.values());
	}

	/**
	 * Return which of the given threads are acquiring a lock now.
	 * @param threads the threads to look at
	 * @return those acquiring a lock
	 */
	List<Thread> waiting(List<Thread> threads) {
		return threads.stream().filter(this.inProgress::containsKey).toList();
	}

}
