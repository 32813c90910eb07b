package dev.distlock.check;

import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import dev.distlock.Leadership;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockEvent;
import dev.distlock.LockLostEvent;

/**
 * An event listener that calls back into the leadership whose term ended, as an
 * application's listener may: told that the term's lock was lost or the term revoked, it
 * asks whether this instance leads and for the term's fencing token (a yes after the
 * revocation is the {@code leader-after-revoke} violation), and one time in four it stops
 * campaigning and starts again, each recorded as a {@code CALL} line. A listener that the
 * engine runs under one of its locks, or on the thread that renews leases, deadlocks or
 * starves the worker, which the stop of the run then reports.
 */
final class TermLossCallbacks implements Consumer<LockEvent> {

	private final AtomicReference<RecordedLeadership> leadership = new AtomicReference<>();

	private final History history;

	private final Random random;

	private final BooleanSupplier stopping;

	/** Held while the listener starts the leadership again, and by the run's stop. */
	private final Object restarting = new Object();

	TermLossCallbacks(History history, long seed, BooleanSupplier stopping) {
		this.history = history;
		this.random = new Random(seed);
		this.stopping = stopping;
	}

	/**
	 * Call back into the given leadership from now on.
	 * @param leadership the worker's leadership
	 */
	void callBack(RecordedLeadership leadership) {
		this.leadership.set(leadership);
	}

	/**
	 * Wait for a restart under way: once stopping is set, none begins.
	 */
	void awaitRestarts() {
		synchronized (this.restarting) {
			// A restart under way has ended
		}
	}

	@Override
	public void accept(LockEvent event) {
		RecordedLeadership leadership = this.leadership.get();
		boolean termEnded = event instanceof LockLostEvent || event instanceof LeadershipRevokedEvent;
		if (leadership == null || !termEnded || !event.name().equals(leadership.name())) {
			return;
		}
		leadership.isLeader();
		leadership.fencingToken();
		if (this.random.nextInt(4) == 0) {
			this.history.recordCall("restart", () -> restart(leadership.delegate()));
		}
	}

	private void restart(Leadership leadership) {
		synchronized (this.restarting) {
			if (!this.stopping.getAsBoolean()) {
				leadership.stop();
				leadership.start();
			}
		}
	}

}
