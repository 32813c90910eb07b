package dev.distlock.check;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import dev.distlock.LockLease;
import dev.distlock.LockLostException;

/**
 * One acquisition as a worker saw it, recorded in its {@link History}: {@code ACQ} when
 * acquired, {@code VALID} for every look at the lease's validity, {@code REL} with the
 * outcome of the first release.
 */
final class RecordedHold {

	/**
	 * The end of the outcome of a release that failed because its thread was interrupted.
	 */
	static final String INTERRUPTED = ":interrupted";

	private final History history;

	private final String id;

	private final String name;

	private final long token;

	private final LockLease view;

	private final AtomicBoolean released = new AtomicBoolean();

	private final AtomicInteger operations = new AtomicInteger();

	RecordedHold(History history, String id, String name, long token, LockLease view) {
		this.history = history;
		this.id = id;
		this.name = name;
		this.token = token;
		this.view = view;
	}

	String id() {
		return this.id;
	}

	String name() {
		return this.name;
	}

	long token() {
		return this.token;
	}

	/**
	 * Return whether a release of this hold ended it or threw.
	 * @return whether it was released
	 */
	boolean isReleased() {
		return this.released.get();
	}

	/**
	 * Return a new id for an operation under this hold.
	 * @return the id, unique in the run
	 */
	String nextOperation() {
		return this.id + "." + this.operations.incrementAndGet();
	}

	/**
	 * Ask the lease whether it is still valid, and record the answer between the times
	 * taken before and after asking.
	 * @return whether the lease said it was valid
	 */
	boolean checkValid() {
		long before = History.now();
		boolean valid = this.view.isValid();
		recordValidity(before, valid);
		return valid;
	}

	/**
	 * Ask the lease whether it is still valid for a {@link ValiditySampler}, and record
	 * the answer as {@link #checkValid()} does only when it is yes: the holder did not
	 * ask.
	 */
	void sampleValid() {
		long before = History.now();
		if (this.view.isValid()) {
			recordValidity(before, true);
		}
	}

	/**
	 * Record an answer about the lease's validity, with the lease it had left as its
	 * holder counts it, read after the answer (so never more than it had then).
	 */
	private void recordValidity(long before, boolean valid) {
		long left = valid ? this.view.remainingLease().toNanos() / 1000 : 0;
		this.history.record("VALID", "hold", this.id, "before", before, "after", History.now(), "valid", valid, "left",
				left);
	}

	/**
	 * Run a release and record its outcome: {@code OK}, {@code LOST} for a
	 * {@link LockLostException}, otherwise {@code FAIL} with the exception's type,
	 * followed by {@value #INTERRUPTED} when an {@link InterruptedException} caused it.
	 * @param release the release
	 */
	void release(Runnable release) {
		release(release, () -> true);
	}

	/**
	 * Run a release that may only leave a reentry, and record its outcome if it threw or
	 * ended the hold.
	 * @param release the release
	 * @param ended whether the release, returning normally, ended the hold
	 */
	void release(Runnable release, BooleanSupplier ended) {
		long start = History.now();
		String outcome = "OK";
		try {
			release.run();
		}
		catch (LockLostException ex) {
			outcome = "LOST";
			throw ex;
		}
		catch (RuntimeException | Error ex) {
			outcome = "FAIL:" + ex.getClass().getSimpleName() + (causedByAnInterrupt(ex) ? INTERRUPTED : "");
			throw ex;
		}
		finally {
			if ((!outcome.equals("OK") || ended.getAsBoolean()) && this.released.compareAndSet(false, true)) {
				this.history.record("REL", "hold", this.id, "start", start, "end", History.now(), "outcome", outcome);
			}
		}
	}

	private static boolean causedByAnInterrupt(Throwable ex) {
		return RecordedWaits.causes(ex).contains(InterruptedException.class.getName());
	}

}
