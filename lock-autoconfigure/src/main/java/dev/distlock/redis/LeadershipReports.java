package dev.distlock.redis;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockObserver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells of the terms of a registry's leaderships: logs each, tells the observer and
 * publishes its event on the registry's event thread.
 */
final class LeadershipReports {

	private static final Log logger = LogFactory.getLog(RedisLockRegistry.class);

	private final LockEventPublisher events;

	private final LockObserver observer;

	LeadershipReports(LockEventPublisher events, LockObserver observer) {
		this.events = events;
		this.observer = observer;
	}

	/**
	 * Report that a term began: this instance holds the lock.
	 */
	void granted(LockId id, LeadershipTerm term) {
		logger.info("Leadership '" + id.name + "' was granted to this instance (fencing token " + term.fencingToken()
				+ ")");
		LeadershipGrantedEvent event = new LeadershipGrantedEvent(id.name.value(), id.key, term.fencingToken(), term);
		this.observer.leadershipGranted(id.name, event);
		this.events.publish(event);
	}

	/**
	 * Report that a term ended, before its lock is released: the term's loss actions run
	 * on the event thread, then the listener is told. Returns once it was told.
	 */
	void revoked(LockId id, LeadershipTerm term, String reason) {
		long fencingToken = term.fencingToken();
		String revocation = "Leadership '" + id.name + "' (fencing token " + fencingToken + ") was revoked: " + reason;
		logger.info(revocation);
		LeadershipRevokedEvent event = new LeadershipRevokedEvent(id.name.value(), id.key, fencingToken, reason);
		this.observer.leadershipRevoked(id.name, event);
		this.events.publishAndAwait(event, () -> term.runEndActions(revocation));
	}

	/**
	 * Return whether the calling thread is the event listener's, which must not wait for
	 * a term to be revoked or released: the revocation is delivered on it, after the
	 * listener returns.
	 */
	boolean calledByListener() {
		return this.events.calledByListener();
	}

}
