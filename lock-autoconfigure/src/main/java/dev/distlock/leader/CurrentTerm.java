package dev.distlock.leader;

import org.jspecify.annotations.Nullable;

/**
 * The current term of a {@link LockLeadership} and how a term ends. Any thread may end a
 * term, for the first reason given: a loss action of its lease, a caller that yields or
 * stops, a caller that found its lease run out, or the candidate, which sleeps until the
 * lease may have run out. Only the candidate revokes it, once, and then releases its
 * lock; a caller that learns that the term ended waits for its revocation, one that
 * yields for its release, unless it may not wait for the candidate.
 */
final class CurrentTerm {

	private final LeadershipMonitor monitor;

	private final Candidacy candidacy;

	private final TermReports reports;

	/** The current term, from its grant until its lock was released. */
	private volatile @Nullable LeadershipTerm term;

	/**
	 * Create the term state of a leadership, with no term.
	 * @param monitor the leadership's monitor
	 * @param candidacy the leadership's candidacy
	 * @param reports how the terms are told of, for the reason of a term whose lease ran
	 * out
	 */
	CurrentTerm(LeadershipMonitor monitor, Candidacy candidacy, TermReports reports) {
		this.monitor = monitor;
		this.candidacy = candidacy;
		this.reports = reports;
	}

	/**
	 * Make the given term current, unless stopped; either way the first election is
	 * decided, so that a start that came with a stop does not wait for a later term.
	 * @param current a term that begins
	 * @return whether it is current
	 */
	boolean begin(LeadershipTerm current) {
		return this.monitor.call(() -> {
			boolean running = this.candidacy.isRunning();
			if (running) {
				this.term = current;
			}
			this.candidacy.recordElection(Election.DECIDED);
			return running;
		});
	}

	/**
	 * Return the current term while it is valid. A term found no longer valid is ended
	 * (when its lease ran out; a lost lock ends it through its loss action) and its
	 * revocation awaited, unless the caller {@linkplain Candidacy#mayWait() may not wait}
	 * (the candidate, or an event listener, on the thread that delivers the revocation
	 * after it): so no caller learns that the term is over before the revocation was
	 * delivered.
	 * @return the valid current term, or {@code null}
	 */
	@Nullable LeadershipTerm leading() {
		LeadershipTerm current = this.term;
		if (current == null) {
			return null;
		}
		if (current.isValid()) {
			return current;
		}
		this.monitor.run(() -> {
			if (current.remainingLease().isZero()) {
				end(current, this.reports.leaseRanOut());
			}
			if (this.candidacy.mayWait()) {
				this.monitor.awaitWhile(() -> !current.revoked);
			}
		});
		return null;
	}

	/**
	 * End the given term, as {@link LockLeadership#yieldLeadership()} does, unless it
	 * ended already, and return once its lock was released (at once when the caller may
	 * not wait).
	 * @param current the term to yield
	 */
	void yieldTerm(LeadershipTerm current) {
		this.monitor.run(() -> {
			end(current, "it yielded");
			if (this.candidacy.mayWait()) {
				this.monitor.awaitWhile(() -> !current.lockReleased);
			}
		});
	}

	/**
	 * End the current term, if there is one, for the given reason.
	 * @param reason why, for people to read
	 */
	void endCurrent(String reason) {
		this.monitor.run(() -> {
			LeadershipTerm current = this.term;
			if (current != null) {
				end(current, reason);
			}
		});
	}

	/**
	 * End a term for the given reason, unless it ended already, and wake the candidate.
	 * @param current the term to end
	 * @param reason why, for people to read
	 */
	void end(LeadershipTerm current, String reason) {
		this.monitor.run(() -> {
			if (current.endReason == null) {
				current.endReason = reason;
				this.monitor.signalAll();
			}
		});
	}

	/**
	 * Wait until the term ends, ending it when its lease ran out with no renewal moving
	 * it on. Called by the candidate.
	 * @param current the term the candidate serves
	 * @return why it ended
	 */
	String awaitEnd(LeadershipTerm current) {
		return this.monitor.call(() -> {
			String reason = current.endReason;
			while (reason == null) {
				long left = current.remainingLease().toNanos();
				if (left <= 0) {
					end(current, this.reports.leaseRanOut());
				}
				else {
					this.monitor.awaitChange(left);
				}
				reason = current.endReason;
			}
			return reason;
		});
	}

	/**
	 * Record that a term's revocation was published, or that the candidate failed to
	 * publish it: either way the term is over.
	 * @param current the term the candidate served
	 */
	void markRevoked(LeadershipTerm current) {
		this.monitor.run(() -> {
			end(current, "its leadership thread failed");
			current.revoked = true;
			this.monitor.signalAll();
		});
	}

	/**
	 * Record that a term's lock was released: it is no longer the current term.
	 * @param current the term the candidate served
	 */
	void released(LeadershipTerm current) {
		this.monitor.run(() -> {
			current.lockReleased = true;
			if (this.term == current) {
				this.term = null;
			}
			this.monitor.signalAll();
		});
	}

}
