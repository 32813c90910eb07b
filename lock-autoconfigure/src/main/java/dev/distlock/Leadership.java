package dev.distlock;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * This instance's candidacy for the leadership of one name: of all the instances that
 * campaign for the same name on the same Redis, at most one is leader at a time. Obtained
 * from {@link LockRegistry#leadership(String)}, and started and stopped by the
 * application.
 *
 * <p>
 * A started leadership waits, on a daemon thread of its own, for the exclusive lock of
 * its name, in the lock's fair queue in Redis, and is leader while it holds it: from when
 * it acquired the lock until it yields, stops, or finds the lock lost (a renewal found it
 * gone or taken, renewals failed until its lease would run out, or its lease ran out with
 * no renewal confirmed). Then it campaigns again, at the back of the queue. Each term is
 * one hold of the lock, with the hold's fencing token, renewed by the watchdog like any
 * lock. A standby takes over within about a lease after the leader dies, and at once
 * after it yields or stops.
 *
 * <p>
 * The terms are told as events, on the registry's event listener (the application's event
 * publisher in a Spring application), in order: {@link LeadershipGrantedEvent} when a
 * term begins, {@link LeadershipRevokedEvent} when it ends, delivered before its lock is
 * released. The registry delivers its events on a thread of its own, never while an
 * engine lock is held: a listener may call this leadership's methods, even
 * {@link #stop()}, and a slow listener delays later events and the release of an ended
 * term's lock, never a renewal. The grant carries the term as a {@link LockLease}, valid
 * while the term lasts, whose loss actions run when the term ends, before its revocation:
 * the leader's work checks it and stops on it.
 *
 * @since 0.1.0
 */
public interface Leadership {

	/**
	 * Return the name this leadership is for: the name of its lock.
	 * @return the name given to the registry
	 */
	String name();

	/**
	 * Start campaigning for the leadership, and return once the first election is
	 * decided: this instance leads ({@link #isLeader()} is {@code true}) if no other
	 * instance held the lock, otherwise it waits as a standby, or Redis failed to answer
	 * within its command timeout and it keeps trying in the background
	 * ({@link #awaitDecision(Duration)} waits for it). So a sole instance leads when this
	 * method returns. Does nothing while it campaigns already.
	 */
	void start();

	/**
	 * Wait until the first election since {@link #start()} is decided, and return whether
	 * this instance leads. {@code start()} returns once it is decided, unless Redis
	 * failed to answer; then the leadership keeps trying in the background, and this
	 * method waits until Redis answered, or for at most the given time.
	 * <p>
	 * The default returns {@link #isLeader()} at once, for a leadership whose
	 * {@code start()} always returns with the election decided.
	 * @param timeout how long to wait at most
	 * @return {@code true} if this instance leads; {@code false} if another instance
	 * holds the lock and this one is a standby, if the election was not decided within
	 * the timeout, or if not started
	 * @throws InterruptedException if interrupted while waiting
	 */
	default boolean awaitDecision(Duration timeout) throws InterruptedException {
		return isLeader();
	}

	/**
	 * Stop campaigning: end the term if this instance is leader, publishing
	 * {@link LeadershipRevokedEvent}, and release the lock so that a standby takes over
	 * at once; or leave the lock's queue. Returns once the lock was released, which
	 * Redis' command timeout bounds; called by an event listener, returns at once, and
	 * the lock is released once the revocation was delivered after the listener. Does
	 * nothing when not started.
	 */
	void stop();

	/**
	 * Return whether this instance is leader now: it holds the lock and its lease is
	 * valid by this JVM's clock. A term whose lease ran out is revoked first, so that its
	 * {@link LeadershipRevokedEvent} is delivered before this method answers
	 * {@code false} for it (except to an event listener, which the revocation follows).
	 * @return whether this instance is leader
	 */
	boolean isLeader();

	/**
	 * Give the leadership up if this instance is leader: end the term, publishing
	 * {@link LeadershipRevokedEvent}, release the lock, which goes to the standby that
	 * waited longest, and campaign again behind it. With no standby waiting this instance
	 * is elected again at once, for a new term with a new fencing token. Returns once the
	 * lock was released (at once when called by an event listener, as {@link #stop()}).
	 * Does nothing when this instance is not leader.
	 */
	void yieldLeadership();

	/**
	 * Return the fencing token of the current term, for the resources that a leader
	 * writes to check.
	 * @return the token while this instance is leader, otherwise empty
	 */
	OptionalLong fencingToken();

}
