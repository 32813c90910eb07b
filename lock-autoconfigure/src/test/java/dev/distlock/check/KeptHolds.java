package dev.distlock.check;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongPredicate;

/**
 * The holds a worker's threads keep after working under them, and how much of that time
 * is left, counted in steps of {@value #STEP_MILLIS} ms of the JVM running: a freeze
 * ({@code SIGSTOP}) uses up one step, not the time it lasted, as a holder's work does not
 * advance while its process stands still. So a holder frozen while it keeps a hold is
 * still keeping it, and looking at its validity, once thawed; the nemesis aims its
 * freezes at such holders ({@code kept=} in a worker's status), and its flushes at
 * holders about to release ({@code ending=}).
 */
final class KeptHolds {

	private static final long STEP_MILLIS = 10;

	private final Map<Thread, Kept> kept = new ConcurrentHashMap<>();

	/**
	 * Keep the named hold for the given time of the JVM running, or until the thread is
	 * interrupted.
	 * @param name the name of the lock, read/write lock or semaphore held
	 * @param millis how long
	 */
	void keep(String name, long millis) {
		Kept keeping = new Kept(name, millis / STEP_MILLIS);
		this.kept.put(Thread.currentThread(), keeping);
		try {
			while (keeping.steps.get() > 0 && !Thread.currentThread().isInterrupted()) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(STEP_MILLIS));
				keeping.steps.decrementAndGet();
			}
		}
		finally {
			this.kept.remove(Thread.currentThread());
		}
	}

	/**
	 * Keep every hold kept now the given time of the JVM running longer.
	 * @param millis how much longer
	 */
	void prolong(long millis) {
		for (Kept keeping : this.kept.values()) {
			keeping.steps.addAndGet(millis / STEP_MILLIS);
		}
	}

	/**
	 * Return the names of the holds kept with a time left that the given test accepts.
	 * @param left the test of the time left, in milliseconds
	 * @return the names
	 */
	Set<String> kept(LongPredicate left) {
		Set<String> names = new TreeSet<>();
		for (Kept keeping : this.kept.values()) {
			if (left.test(keeping.steps.get() * STEP_MILLIS)) {
				names.add(keeping.name);
			}
		}
		return names;
	}

	/**
	 * One thread's kept hold.
	 */
	private static final class Kept {

		final String name;

		final AtomicLong steps;

		Kept(String name, long steps) {
			this.name = name;
			this.steps = new AtomicLong(steps);
		}

	}

}
