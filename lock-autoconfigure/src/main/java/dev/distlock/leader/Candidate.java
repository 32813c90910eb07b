package dev.distlock.leader;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

import dev.distlock.DistributedLockException;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.LockRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * What the candidate thread of a {@link LockLeadership} does until stopped: it waits for
 * the lock without end (in the lock's fair queue), serves a term while it holds it,
 * publishes the term's events, releases the lock when the term ended and its revocation
 * was delivered, and waits for the lock again. Acquisitions that the registry fails are
 * tried again after a back-off from {@value #MIN_BACKOFF_MILLIS} ms, doubling up to
 * {@value #MAX_BACKOFF_MILLIS} ms.
 */
final class Candidate {

	/**
	 * The back-off after the first acquisition that the registry failed, in milliseconds.
	 */
	static final long MIN_BACKOFF_MILLIS = 100;

	/**
	 * The longest back-off between acquisitions that the registry failed, in
	 * milliseconds.
	 */
	static final long MAX_BACKOFF_MILLIS = 2000;

	private static final Log logger = LogFactory.getLog(LockLeadership.class);

	private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

	private final LockRegistry registry;

	private final LockName name;

	private final Candidacy candidacy;

	private final CurrentTerm terms;

	private final TermReports reports;

	/**
	 * Create the candidate of a leadership.
	 * @param registry the registry whose lock of the given name it campaigns for
	 * @param name the leadership's name, which is its lock's name
	 * @param candidacy the leadership's candidacy
	 * @param terms the leadership's current term
	 * @param reports how the terms are told of
	 */
	Candidate(LockRegistry registry, LockName name, Candidacy candidacy, CurrentTerm terms, TermReports reports) {
		this.registry = registry;
		this.name = name;
		this.candidacy = candidacy;
		this.terms = terms;
		this.reports = reports;
	}

	/**
	 * Campaign until stopped: wait for the lock, serve a term, and again. The first
	 * attempt tries once, so that the first election is decided at once.
	 */
	void campaign() {
		try {
			LockLease lease = awaitLock(true);
			while (lease != null) {
				serve(lease);
				lease = awaitLock(false);
			}
		}
		catch (RuntimeException | Error ex) {
			logger.error("Leadership '" + this.name + "' stopped campaigning", ex);
			this.candidacy.candidateFailed();
		}
	}

	/**
	 * Wait for the lock without end, trying again after a back-off while the registry
	 * fails.
	 * @param firstElection whether to try once first, again after each back-off until the
	 * registry answers, and record how the first election went: decided when an attempt
	 * that the registry answered did not get the lock (a term that begins records it),
	 * failing while the registry fails
	 * @return the lease, or {@code null} once stopped, when the candidate ends
	 */
	private @Nullable LockLease awaitLock(boolean firstElection) {
		BackOffExecution backOff = null;
		boolean once = firstElection;
		while (this.candidacy.beginAcquiring()) {
			Optional<LockLease> lease = Optional.empty();
			DistributedLockException failure = null;
			try {
				lease = this.registry.tryAcquire(this.name, once ? Duration.ZERO : FOREVER);
			}
			catch (DistributedLockException ex) {
				// Stopped when interrupted: seen through running
				failure = Thread.currentThread().isInterrupted() ? null : ex;
			}
			finally {
				this.candidacy.endAcquiring();
			}
			if (lease.isPresent()) {
				return lease.get();
			}
			if (once) {
				this.candidacy.recordElection((failure != null) ? Election.FAILING : Election.DECIDED);
				once = (failure != null);
			}
			if (failure != null && this.candidacy.isRunning()) {
				if (backOff == null) {
					logger.warn("Leadership '" + this.name + "' cannot campaign while Redis fails; trying again: "
							+ failure.getMessage());
					backOff = backOff().start();
				}
				this.candidacy.sleepUnlessStopped(backOff.nextBackOff());
			}
		}
		return null;
	}

	private static ExponentialBackOff backOff() {
		ExponentialBackOff backOff = new ExponentialBackOff(MIN_BACKOFF_MILLIS, 2);
		backOff.setMaxInterval(MAX_BACKOFF_MILLIS);
		return backOff;
	}

	/**
	 * Serve one term: publish its grant, wait for its end, publish its revocation, and
	 * release its lock. A lease acquired after a stop is released at once.
	 */
	private void serve(LockLease lease) {
		LeadershipTerm current = new LeadershipTerm(lease, this.terms);
		if (!this.terms.begin(current)) {
			releaseQuietly(lease);
			return;
		}
		try {
			lease.onLoss((lost) -> this.terms.end(current, lost.getMessage()));
			this.reports.granted(current);
			this.reports.revoked(current, this.terms.awaitEnd(current));
		}
		finally {
			this.terms.markRevoked(current);
			releaseQuietly(lease);
			this.terms.released(current);
		}
	}

	/**
	 * Release a term's lock. A lock found lost was reported by the registry, and one that
	 * the registry could not release expires with its lease.
	 */
	private void releaseQuietly(LockLease lease) {
		try {
			lease.release();
		}
		catch (LockLostException ex) {
			// Reported with a LockLostEvent
		}
		catch (DistributedLockException ex) {
			logger.warn("Leadership '" + this.name + "' could not release its lock, which expires with its lease: "
					+ ex.getMessage());
		}
	}

}
