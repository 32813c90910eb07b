package dev.distlock.leader;

import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The candidate of a {@link LockLeadership} as its other threads see it: whether the
 * leadership campaigns, the thread that does, whether that thread waits for the lock
 * (which a stop interrupts), and how far its first election got, which
 * {@link LockLeadership#start()} and {@link LockLeadership#awaitDecision} wait for.
 */
final class Candidacy {

	private final LeadershipMonitor monitor;

	private final LeadershipEvents events;

	/** Whether to campaign; guarded by the monitor. */
	private boolean running;

	/** The thread that campaigns, or {@code null}; guarded by the monitor. */
	private @Nullable Thread candidate;

	/** How far the candidate's first election got; guarded by the monitor. */
	private Election election = Election.TRYING;

	/**
	 * Whether the candidate waits for the lock, which an interrupt ends; guarded by the
	 * monitor.
	 */
	private boolean acquiring;

	/**
	 * Create the candidacy of a leadership, not started.
	 * @param monitor the leadership's monitor
	 * @param events how the registry tells of the terms, for whether the caller is the
	 * thread that tells the listener
	 */
	Candidacy(LeadershipMonitor monitor, LeadershipEvents events) {
		this.monitor = monitor;
		this.events = events;
	}

	/**
	 * Campaign, with a new candidate thread unless one campaigns already, and return once
	 * its first election was decided or failed, or it stopped or ended.
	 * @param campaign what the candidate thread runs
	 * @param threadName the name of a new candidate thread
	 */
	void start(Runnable campaign, String threadName) {
		this.monitor.run(() -> {
			this.running = true;
			Thread current = this.candidate;
			Thread thread = (current != null) ? current : startCandidate(campaign, threadName);
			this.monitor.awaitWhile(() -> this.running && this.candidate == thread && this.election == Election.TRYING);
		});
	}

	/**
	 * Start a candidate thread, whose first election is under way. Called holding the
	 * monitor.
	 */
	private Thread startCandidate(Runnable campaign, String threadName) {
		Thread thread = new Thread(campaign, threadName);
		thread.setDaemon(true);
		this.candidate = thread;
		this.election = Election.TRYING;
		thread.start();
		return thread;
	}

	/**
	 * Stop campaigning: interrupt the candidate if it waits for the lock, and return once
	 * it ended, unless the leadership was started again first, or the caller
	 * {@linkplain #mayWait() may not wait} for it.
	 */
	void stop() {
		this.monitor.run(() -> {
			this.running = false;
			Thread thread = this.candidate;
			if (thread != null && this.acquiring) {
				thread.interrupt();
			}
			this.monitor.signalAll();
			if (mayWait()) {
				this.monitor.awaitWhile(() -> thread != null && this.candidate == thread && !this.running);
			}
		});
	}

	/**
	 * Wait at most the given time for the first election to be decided, unless stopped or
	 * the candidate ended.
	 * @param nanos how long to wait at the most, in nanoseconds
	 * @throws InterruptedException if the calling thread is interrupted
	 */
	void awaitDecision(long nanos) throws InterruptedException {
		this.monitor.awaitWhile(() -> this.running && this.candidate != null && this.election != Election.DECIDED,
				nanos);
	}

	/**
	 * Return whether the leadership campaigns: started and not stopped.
	 * @return whether it is running
	 */
	boolean isRunning() {
		return this.monitor.call(() -> this.running);
	}

	/**
	 * Return whether the calling thread may wait for the candidate: not the candidate
	 * itself (an observer of the registry is told of a term on it) and not the thread
	 * that delivers the events the candidate waits for (a listener). Called holding the
	 * monitor.
	 * @return whether the caller may wait
	 */
	boolean mayWait() {
		return Thread.currentThread() != this.candidate && !this.events.calledByListener();
	}

	/**
	 * Record how far the first election got, and wake {@link #start} and
	 * {@link #awaitDecision}.
	 * @param reached how far it got
	 */
	void recordElection(Election reached) {
		this.monitor.run(() -> {
			this.election = reached;
			this.monitor.signalAll();
		});
	}

	/**
	 * Mark the candidate acquiring, so that a stop interrupts it, unless stopped; the
	 * candidate ends then.
	 * @return whether to acquire
	 */
	boolean beginAcquiring() {
		return this.monitor.call(() -> {
			if (!this.running) {
				this.candidate = null;
				this.monitor.signalAll();
				return false;
			}
			this.acquiring = true;
			return true;
		});
	}

	/**
	 * Mark the candidate no longer acquiring, and clear an interrupt of a stop that came
	 * as the acquisition ended: it is seen through {@link #isRunning()}.
	 */
	void endAcquiring() {
		this.monitor.run(() -> this.acquiring = false);
		Thread.interrupted();
	}

	/**
	 * Sleep for the given time, unless stopped first.
	 * @param millis how long to sleep, in milliseconds
	 */
	void sleepUnlessStopped(long millis) {
		try {
			this.monitor.awaitWhile(() -> this.running, TimeUnit.MILLISECONDS.toNanos(millis));
		}
		catch (InterruptedException ex) {
			// Only a stop interrupts the candidate
		}
	}

	/**
	 * Record that the candidate ended, after a failure: a start begins a new one.
	 */
	void candidateFailed() {
		this.monitor.run(() -> {
			this.candidate = null;
			this.monitor.signalAll();
		});
	}

}
