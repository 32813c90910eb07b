package dev.distlock.redis;

import java.time.Duration;
import java.util.function.Consumer;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LockLostException;
import org.jspecify.annotations.Nullable;

/**
 * One term of a {@link RedisLeadership}: one hold of its lock, from the grant until the
 * lock was released, and the lease that {@link LeadershipGrantedEvent#term()} gives to
 * the listeners. The lease is valid while the term lasts. Its loss actions run when the
 * term ends, whatever ended it, on the registry's event thread just before the revocation
 * is delivered. Releasing it yields the term, if it still lasts.
 */
final class LeadershipTerm extends HoldLease {

	private final RedisLeadership leadership;

	/** The actions to run when the term ends, unless its lease was released first. */
	private final LossActions endActions = new LossActions();

	/** Why the term ended, or {@code null} while it lasts; written under the lock. */
	volatile @Nullable String endReason;

	/** Whether its revocation was published; guarded by the leadership's lock. */
	boolean revoked;

	/** Whether its lock was released; guarded by the leadership's lock. */
	boolean lockReleased;

	LeadershipTerm(RedisHold hold, RedisLeadership leadership) {
		super(hold);
		this.leadership = leadership;
	}

	/**
	 * Return whether the term lasts: it has not ended, and its hold is valid by this
	 * JVM's clock.
	 */
	@Override
	public boolean isValid() {
		return this.endReason == null && this.hold.isValid();
	}

	@Override
	public void onLoss(Consumer<? super LockLostException> action) {
		this.endActions.add(action);
	}

	/**
	 * Yield the term, as {@link RedisLeadership#yieldLeadership()} does, without running
	 * the loss actions, unless it ended already; return once its lock was released (at
	 * once when called by an event listener).
	 */
	@Override
	public void release() {
		this.endActions.drop();
		this.leadership.yieldTerm(this);
	}

	/**
	 * Refuse: a term is kept by the watchdog with the leadership's lease, which is the
	 * same for every candidate, so that a standby knows how long a dead leader's term can
	 * last.
	 * @throws UnsupportedOperationException always
	 */
	@Override
	public void extend(Duration leaseTime) {
		throw new UnsupportedOperationException("The term of leadership '" + name()
				+ "' cannot be extended: the watchdog keeps it with the registry's lease (distlock.lease-time)");
	}

	/**
	 * Run the loss actions, unless the lease was released first: the term ended.
	 * @param revocation why, for people to read
	 */
	void runEndActions(String revocation) {
		this.endActions.run(new LockLostException(name(), fencingToken(), revocation));
	}

	@Override
	public String toString() {
		return "Term of leadership '" + name() + "' (fencing token " + fencingToken() + ")";
	}

}
