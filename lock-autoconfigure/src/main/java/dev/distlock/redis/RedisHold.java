package dev.distlock.redis;

import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLostEvent;
import dev.distlock.LockObserver;
import dev.distlock.LockRenewalFailedEvent;
import dev.distlock.redis.renewal.LeaseTerms;
import dev.distlock.redis.renewal.RenewedHold;
import org.jspecify.annotations.Nullable;

/**
 * One successful acquisition of a lock in Redis: its random token, its fencing token and
 * how long it is known to be valid. Validity is counted from when the acquiring or
 * renewing command was sent, so this JVM never believes in a lease longer than Redis
 * keeps it. Redis never shortens a held key (renewals and extensions only lengthen it),
 * so every confirmed renewal or extension is a lower bound of the key's life, and the
 * validity is the latest of them.
 */
final class RedisHold implements RenewedHold {

	/** Where a hold stands. */
	enum State {

		/** Held, as far as this JVM knows. */
		HELD,

		/** Found expired or taken over, and reported. */
		LOST,

		/** Released by its holder. */
		RELEASED

	}

	final LockId id;

	/** How the hold is kept in Redis. */
	final HoldKind kind;

	final String token;

	final long fencingToken;

	final Instant acquiredAt;

	final long acquiredNanos;

	/** Whether the watchdog renews this hold. */
	final boolean renewed;

	/** Whether the hold started on a grant's message; see {@link #takeUpNanos}. */
	final boolean startedOnGrant;

	/**
	 * When a hold started on a grant takes it up, in {@link System#nanoTime()}: a quarter
	 * of its validity after the attempt that queued it was sent, the latest it may start
	 * (unless a fixed lease shorter than the claim time bounds the validity), so that the
	 * take-up has the other three quarters to reach Redis however early it started. A
	 * hold whose release Redis answered before never takes its grant up: the release
	 * found the key the grant wrote. One whose release is still on its way does: the
	 * release may reach Redis after the claim time, behind other commands, and would find
	 * the key expired.
	 */
	final long takeUpNanos;

	private final long minHoldNanos;

	/** Name of the owning thread, or {@code null} for an owner-free lease. */
	volatile @Nullable String owner;

	/** See {@link #isReleasing()}; written by the releasing thread only. */
	private volatile boolean releasing;

	/** See {@link #renewalFailure()}; written by the watchdog only. */
	private volatile @Nullable String renewalFailure;

	/** Reentry count of the owning thread; read and written by that thread only. */
	int reentries;

	/**
	 * Held while a loss of this hold is reported (marked, told to the observation, its
	 * event queued), so that a release waits until it is. Never held while a listener
	 * runs.
	 */
	final Lock reporting = new ReentrantLock();

	/** Run once if this hold is found lost, dropped if it is released first. */
	final LossActions lossActions = new LossActions();

	/** Held while the hold is extended, so that extensions of it run one at a time. */
	final Lock extending = new ReentrantLock();

	private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

	/**
	 * How this hold is observed: set by the thread that acquired it, once it has it and
	 * before the watchdog and the lease expiries know it.
	 */
	private volatile LockObserver.Hold observation = LockObserver.Hold.NONE;

	private final AtomicLong validUntilNanos;

	/**
	 * The lease and lock delay of the hold: the watchdog renews it with them; an
	 * extension to a longer lease replaces them.
	 */
	private volatile LeaseTerms terms;

	RedisHold(LockId id, HoldKind kind, String token, long fencingToken, long sentNanos, LeaseTerms terms,
			LeaseOptions options) {
		this(id, kind, token, fencingToken, sentNanos, sentNanos + TimeUnit.MILLISECONDS.toNanos(terms.leaseMillis()),
				terms, options, false, 0);
	}

	private RedisHold(LockId id, HoldKind kind, String token, long fencingToken, long acquiredNanos,
			long validUntilNanos, LeaseTerms terms, LeaseOptions options, boolean startedOnGrant, long takeUpNanos) {
		this.id = id;
		this.kind = kind;
		this.token = token;
		this.fencingToken = fencingToken;
		this.acquiredAt = Instant.now();
		this.acquiredNanos = acquiredNanos;
		this.terms = terms;
		this.renewed = options.leaseTime() == null;
		this.minHoldNanos = (options.minHoldTime() != null) ? options.minHoldTime().toNanos() : 0;
		this.validUntilNanos = new AtomicLong(validUntilNanos);
		this.startedOnGrant = startedOnGrant;
		this.takeUpNanos = takeUpNanos;
	}

	/**
	 * Return the hold of a lock that a release granted, started now on the grant's
	 * message: valid for the grant's claim time (or its lease, if shorter) from when the
	 * attempt that queued its waiter was sent (the grant came after that attempt), until
	 * its take-up renews it with its terms.
	 * @param sentNanos when the attempt that queued the waiter was sent
	 * @param claimMillis the claim time of that attempt
	 */
	static RedisHold startedOnGrant(LockId id, String token, long fencingToken, long sentNanos, long claimMillis,
			LeaseTerms terms, LeaseOptions options) {
		long validNanos = TimeUnit.MILLISECONDS.toNanos(Math.min(claimMillis, terms.leaseMillis()));
		return new RedisHold(id, HoldKind.EXCLUSIVE, token, fencingToken, System.nanoTime(), sentNanos + validNanos,
				terms, options, true, sentNanos + validNanos / 4);
	}

	@Override
	public String lockName() {
		return this.id.name.value();
	}

	@Override
	public boolean isHeld() {
		return this.state.get() == State.HELD;
	}

	@Override
	public boolean isReleasing() {
		return this.releasing;
	}

	/**
	 * Record whether the hold's release is on its way to Redis: from before the hold is
	 * marked released while valid, until Redis answered the release.
	 */
	void releasing(boolean releasing) {
		this.releasing = releasing;
	}

	@Override
	public boolean isRenewed() {
		return this.renewed;
	}

	@Override
	public @Nullable String renewalFailure() {
		return this.renewalFailure;
	}

	@Override
	public void renewalFailure(@Nullable String failure) {
		this.renewalFailure = failure;
	}

	boolean isValid() {
		return this.state.get() == State.HELD && System.nanoTime() - this.validUntilNanos.get() < 0;
	}

	State state() {
		return this.state.get();
	}

	@Override
	public long validUntilNanos() {
		return this.validUntilNanos.get();
	}

	/**
	 * Return the lease and lock delay the hold is renewed with.
	 */
	@Override
	public LeaseTerms terms() {
		return this.terms;
	}

	/**
	 * Renew the hold with the given terms from now on if their lease is longer than its
	 * own. Called by the thread that holds {@link #extending}.
	 */
	void lengthenLease(LeaseTerms longer) {
		if (longer.leaseMillis() > this.terms.leaseMillis()) {
			this.terms = longer;
		}
	}

	/**
	 * Return how long the key must still be kept when released now, for the minimum hold
	 * time; 0 when it may go at once.
	 */
	long keepMillis() {
		long remaining = this.minHoldNanos - (System.nanoTime() - this.acquiredNanos);
		return (remaining > 0) ? Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)) : 0;
	}

	/**
	 * Record a renewal or extension whose command was sent at the given time with the
	 * given terms. A renewal that was sent before an extension but settles after it
	 * leaves the extension's longer validity.
	 */
	@Override
	public void extend(long sentNanos, LeaseTerms sentTerms) {
		long until = sentNanos + TimeUnit.MILLISECONDS.toNanos(sentTerms.leaseMillis());
		this.validUntilNanos.accumulateAndGet(until,
				(current, candidate) -> (candidate - current > 0) ? candidate : current);
	}

	/**
	 * Start observing this hold, before anything else can find it lost.
	 */
	void observe(LockObserver.Hold observation) {
		this.observation = observation;
	}

	void observeLoss(LockLostEvent event) {
		this.observation.lost(event);
	}

	/**
	 * Tell this hold's observation that a renewal failed and publish the event, unless
	 * the hold was released or found lost meanwhile: under {@link #reporting}, so that a
	 * release, which marks the hold under it first, never stops the observation before
	 * the event, and a loss is published after it.
	 * @param publisher queues the event for the listener
	 */
	void reportRenewalFailure(LockRenewalFailedEvent event, Consumer<? super LockRenewalFailedEvent> publisher) {
		this.reporting.lock();
		try {
			if (this.state.get() == State.HELD) {
				this.observation.renewalFailed(event);
				publisher.accept(event);
			}
		}
		finally {
			this.reporting.unlock();
		}
	}

	LockObserver.Hold observation() {
		return this.observation;
	}

	/**
	 * Mark the hold lost.
	 * @return whether it was held until now (so the loss is to be reported)
	 */
	boolean markLost() {
		return this.state.compareAndSet(State.HELD, State.LOST);
	}

	/**
	 * Mark the hold released.
	 * @return the state before
	 */
	State markReleased() {
		return this.state.getAndSet(State.RELEASED);
	}

}
