package dev.distlock.check;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * Looks at a worker's leadership without a pause while the nemesis freezes the worker,
 * and records the last look within {@link #AFTER_THAW} of the thaw that said it leads
 * ({@link RecordedLeadership#said}). The thaw also wakes the engine's candidate thread,
 * whose wait for the end of the lease ran out meanwhile and which then ends the term, so
 * a look after the thaw sees what a holder thawed past its lease believes only if it
 * comes first: the nemesis has the watch run before the JVM's other threads
 * ({@link ThawFirst}). Started by the nemesis just before it freezes the leader; it stops
 * after the thaw, or after {@link #BOUND} without one.
 */
final class ThawWatch implements Runnable {

	/** The name of the watch's thread. */
	static final String THREAD_NAME = "check-thaw-watch";

	/** How long it looks at most while no freeze comes. */
	static final Duration BOUND = Duration.ofSeconds(5);

	/**
	 * How long a look, or the time between two, must last to have spanned a freeze: far
	 * beyond what a busy machine keeps a running thread waiting, below the freezes it
	 * watches (a lease and more).
	 */
	private static final long GAP_NANOS = TimeUnit.SECONDS.toNanos(1);

	/** How long it goes on looking after the thaw. */
	private static final long AFTER_THAW = TimeUnit.MILLISECONDS.toNanos(20);

	private final RecordedLeadership leadership;

	private final History history;

	private final String id;

	/**
	 * Create the watch of the given leadership.
	 * @param leadership the worker's leadership
	 * @param history the worker's history, where the watch is recorded as the call
	 * {@code thawWatch}: {@code said} when a look after the thaw said it leads,
	 * {@code silent} when none did, {@code unthawed} when no freeze came
	 * @param id the id the nemesis gave the watch, printed once it looks
	 * ({@code WATCHING <id>}) and once it stopped ({@code WATCHED <id>})
	 */
	ThawWatch(RecordedLeadership leadership, History history, String id) {
		this.leadership = leadership;
		this.history = history;
		this.id = id;
	}

	@Override
	public void run() {
		long deadline = System.nanoTime() + BOUND.toNanos();
		long last = System.nanoTime();
		long thawed = 0;
		long saidBefore = 0;
		long saidToken = 0;
		System.out.println("WATCHING " + this.id);
		while (true) {
			long start = System.nanoTime();
			if (thawed == 0 && start - last > GAP_NANOS) {
				thawed = start;
			}
			if ((thawed == 0) ? start - deadline > 0 : start - thawed > AFTER_THAW) {
				break;
			}
			long before = History.now();
			OptionalLong token = this.leadership.delegate().fencingToken();
			last = System.nanoTime();
			if (thawed == 0 && last - start > GAP_NANOS) {
				// Frozen during this look: its answer may be from before the freeze
				thawed = last;
			}
			else if (thawed != 0 && token.isPresent()) {
				saidBefore = before;
				saidToken = token.getAsLong();
			}
		}
		if (saidBefore != 0) {
			this.leadership.said(saidToken, saidBefore);
		}
		this.history.record("CALL", "api", "thawWatch", "outcome",
				(thawed == 0) ? "unthawed" : (saidBefore != 0) ? "said" : "silent");
		System.out.println("WATCHED " + this.id);
	}

}
