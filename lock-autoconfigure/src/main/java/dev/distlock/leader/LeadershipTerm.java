package dev.distlock.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One term of a {@link LockLeadership}: one lease of its lock, from the grant until the
 * lock was released, and the lease that {@link LeadershipGrantedEvent#term()} gives to
 * the listeners. The term is valid while it lasts and its lock's lease is valid. Its loss
 * actions run when the term ends, whatever ended it, on the thread that delivers the
 * events just before the revocation is delivered. Releasing it yields the term, if it
 * still lasts.
 */
final class LeadershipTerm implements LockLease {

	private static final Log logger = LogFactory.getLog(LeadershipTerm.class);

	/** The lease of the term's lock. */
	final LockLease lease;

	private final CurrentTerm terms;

	/** Why the term ended, for its loss actions, or {@code null} once released first. */
	private final CompletableFuture<@Nullable LockLostException> ended = new CompletableFuture<>();

	/** Why the term ended, or {@code null} while it lasts; written under the monitor. */
	volatile @Nullable String endReason;

	/** Whether its revocation was published; guarded by the leadership's monitor. */
	boolean revoked;

	/** Whether its lock was released; guarded by the leadership's monitor. */
	boolean lockReleased;

	LeadershipTerm(LockLease lease, CurrentTerm terms) {
		this.lease = lease;
		this.terms = terms;
	}

	@Override
	public String name() {
		return this.lease.name();
	}

	@Override
	public long fencingToken() {
		return this.lease.fencingToken();
	}

	/**
	 * Return whether the term lasts: it has not ended, and its lock's lease is valid by
	 * this JVM's clock.
	 */
	@Override
	public boolean isValid() {
		return this.endReason == null && this.lease.isValid();
	}

	@Override
	public Duration remainingLease() {
		return this.lease.remainingLease();
	}

	@Override
	public Instant acquiredAt() {
		return this.lease.acquiredAt();
	}

	/**
	 * Run the given action when the term ends, unless the term was released first. An
	 * action that throws is logged.
	 */
	@Override
	public void onLoss(Consumer<? super LockLostException> action) {
		this.ended.thenAccept((lost) -> {
			if (lost == null) {
				return;
			}
			try {
				action.accept(lost);
			}
			catch (RuntimeException | Error ex) {
				logger.error("A loss action of " + this + " failed", ex);
			}
		});
	}

	/**
	 * Yield the term, as {@link LockLeadership#yieldLeadership()} does, without running
	 * the loss actions, unless it ended already; return once its lock was released (at
	 * once when called by an event listener).
	 */
	@Override
	public void release() {
		this.ended.complete(null);
		this.terms.yieldTerm(this);
	}

	/**
	 * Refuse: a term is kept by the watchdog with the registry's lease, which is the same
	 * for every candidate, so that a standby knows how long a dead leader's term can
	 * last.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	public void extend(Duration leaseTime) {
		throw new UnsupportedOperationException("The term of leadership '" + name()
				+ "' cannot be extended: the watchdog keeps it with the registry's lease (distlock.lease-time)");
	}

	/**
	 * Run the loss actions, unless the term was released first: the term ended.
	 * @param revocation why, for people to read
	 */
	void runEndActions(String revocation) {
		this.ended.complete(new LockLostException(name(), fencingToken(), revocation));
	}

	@Override
	public String toString() {
		return "Term of leadership '" + name() + "' (fencing token " + fencingToken() + ")";
	}

}
