package dev.distlock.leader;

import java.time.Duration;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockName;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells of the terms of one {@link LockLeadership}: logs each and has the registry tell
 * its observer and its listener, with the lock's key and the term's fencing token.
 */
final class TermReports {

	private static final Log logger = LogFactory.getLog(LockLeadership.class);

	private final LockName name;

	private final String key;

	private final Duration leaseTime;

	private final LeadershipEvents events;

	TermReports(LockName name, String key, Duration leaseTime, LeadershipEvents events) {
		this.name = name;
		this.key = key;
		this.leaseTime = leaseTime;
		this.events = events;
	}

	/**
	 * Report that a term began: this instance holds the lock.
	 */
	void granted(LeadershipTerm term) {
		logger.info("Leadership '" + this.name + "' was granted to this instance (fencing token " + term.fencingToken()
				+ ")");
		this.events.granted(this.name,
				new LeadershipGrantedEvent(this.name.value(), this.key, term.fencingToken(), term));
	}

	/**
	 * Report that a term ended, before its lock is released: the term's loss actions run
	 * on the event thread, then the listener is told. Returns once it was told.
	 */
	void revoked(LeadershipTerm term, String reason) {
		long fencingToken = term.fencingToken();
		String revocation = "Leadership '" + this.name + "' (fencing token " + fencingToken + ") was revoked: "
				+ reason;
		logger.info(revocation);
		this.events.revoked(this.name, new LeadershipRevokedEvent(this.name.value(), this.key, fencingToken, reason),
				() -> term.runEndActions(revocation));
	}

	/**
	 * Return why a term ends whose lease ran out with no renewal moving it on.
	 */
	String leaseRanOut() {
		return "its lease of " + this.leaseTime.toMillis() + " ms ran out with no renewal confirmed";
	}

}
