package dev.distlock.check;

import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

import dev.distlock.LockLease;

/**
 * The holds a worker's threads keep after working under them, and how much of that time
 * is left, counted in steps of {@value #STEP_MILLIS} ms of the JVM running: a freeze
 * ({@code SIGSTOP}) uses up one step, not the time it lasted, as a holder's work does not
 * advance while its process stands still. So a holder frozen while it keeps a hold is
 * still keeping it, and looking at its validity, once thawed; the nemesis aims its
 * freezes at such holders ({@code kept=} in a worker's status, and {@code shares=} for
 * the read shares and permits among them, which Redis keeps as entries of a set rather
 * than as a key), and its flushes at holders about to release ({@code ending=}). The
 * nemesis also asks how much of a kept hold's lease is left ({@link #leaseLeft}), to thaw
 * a frozen holder at a chosen moment before or after that lease runs out.
 */
final class KeptHolds {

	private static final long STEP_MILLIS = 10;

	private final Map<Thread, Kept> kept = new ConcurrentHashMap<>();

	/**
	 * Keep the named hold for the given time of the JVM running, or until the thread is
	 * interrupted.
	 * @param name the name of the lock, read/write lock or semaphore held
	 * @param hold the hold
	 * @param millis how long
	 * @param shared whether the hold is a read share or a permit: the name of a
	 * read/write lock is kept by its read shares and its write holds alike
	 */
	void keep(String name, LockLease hold, long millis, boolean shared) {
		Kept keeping = new Kept(name, hold, millis / STEP_MILLIS, shared);
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
		return names((keeping) -> left.test(keeping.millisLeft()));
	}

	/**
	 * Return the names of the holds kept with a time left that the given test accepts, of
	 * those still valid: a lost one has no renewal to aim at.
	 * @param left the test of the time left, in milliseconds
	 * @return the names
	 */
	Set<String> valid(LongPredicate left) {
		return names((keeping) -> left.test(keeping.millisLeft()) && keeping.hold.isValid());
	}

	/**
	 * Return the names of the read shares and permits kept with a time left that the
	 * given test accepts, of those still valid: a lost one has no renewal to aim at.
	 * @param left the test of the time left, in milliseconds
	 * @return the names
	 */
	Set<String> shares(LongPredicate left) {
		return names((keeping) -> keeping.shared && left.test(keeping.millisLeft()) && keeping.hold.isValid());
	}

	private Set<String> names(Predicate<Kept> wanted) {
		Set<String> names = new TreeSet<>();
		for (Kept keeping : this.kept.values()) {
			if (wanted.test(keeping)) {
				names.add(keeping.name);
			}
		}
		return names;
	}

	/**
	 * Return how much of its lease the kept hold of one of the given names with the least
	 * left has, as its holder counts it, among those still valid: a hold that was lost,
	 * or whose lease ran out, is no moment to aim at, though a lost one's lease counts on
	 * until its end.
	 * @param names the names
	 * @return the lease left, or empty when no valid hold of those names is kept
	 */
	OptionalLong leaseLeft(Set<String> names) {
		return this.kept.values()
			.stream()
			.filter((keeping) -> names.contains(keeping.name) && keeping.hold.isValid())
			.mapToLong((keeping) -> keeping.hold.remainingLease().toMillis())
			.min();
	}

	/**
	 * One thread's kept hold.
	 */
	private static final class Kept {

		final String name;

		final LockLease hold;

		final AtomicLong steps;

		/** Whether the hold is a read share or a permit. */
		final boolean shared;

		Kept(String name, LockLease hold, long steps, boolean shared) {
			this.name = name;
			this.hold = hold;
			this.steps = new AtomicLong(steps);
			this.shared = shared;
		}

		/**
		 * Return how long the hold is still kept, in milliseconds of the JVM running.
		 */
		long millisLeft() {
			return this.steps.get() * STEP_MILLIS;
		}

	}

}
