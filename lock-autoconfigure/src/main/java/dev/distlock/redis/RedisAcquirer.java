package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import dev.distlock.LeaseOptions;
import dev.distlock.LockObserver;
import dev.distlock.redis.connection.ReplicatedReply;
import dev.distlock.redis.renewal.LeaseTerms;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Takes the holds of a registry's locks, read/write locks and semaphores. A lock is tried
 * in Redis by one thread of this JVM at a time, the first of its waiters
 * ({@link LocalLock}), and not while another thread of this JVM holds it; a shared hold
 * (a read share, a semaphore permit) is tried straight away; both by one loop, with the
 * script of their {@link Acquisition}. A hold taken is told to the {@link LockObserver},
 * then tracked for renewal, listing and loss reporting by {@link ActiveHolds}.
 *
 * <p>
 * A lock's waiter first waits in its JVM until it is first; while this JVM holds the
 * lock, it waits for that hold's release, which hands the lock over or wakes it. Then the
 * loop tries once; when refused and it may wait, it waits in the queue in Redis of the
 * lock, read/write lock or semaphore, where a release grants a lock to the first waiter,
 * or wakes the first live waiter of shared holds to try again, and an attempt is admitted
 * only when no live waiter is queued before it. A lock's waiter meanwhile accepts a hold
 * that a releasing thread of this JVM hands over ({@link HandOver}). Every grant or
 * admission in Redis waits for {@code replicas-to-ack} replicas and is given back when
 * fewer acknowledged it.
 *
 * <p>
 * A waiter subscribes to release signals before it joins the queue, so that no grant or
 * wake-up is missed, and re-checks at least every {@value #RECHECK_MILLIS} ms, renewing
 * its queue entry, which lives {@value #ENTRY_MILLIS} ms: a waiter that died is skipped
 * once that passed. A grant waits {@value #CLAIM_MILLIS} ms, plus twice the waiter's last
 * round trip (its claim time), for its waiter to take it up; then the next attempt of any
 * waiter that finds the lock free grants it to the next. A lock's waiter that hears the
 * grant's message within a quarter of its claim time, counted from when its last attempt
 * was sent (the grant came after that attempt reached Redis, as the message says), starts
 * at once: the grant wrote its token under the lock key and issued its fencing token, and
 * a renewal sent in the background a quarter of the claim time after that attempt takes
 * the grant up, unless Redis answered the lock's release before. Other waiters (one that
 * heard too late, polls, waits on a quorum or for replicas) take it up with their next
 * attempt, which issues a fencing token of their own. A waiter whose wait time ends
 * leaves the queue with its last attempt, or gives its token back; one that stops by an
 * exception (interrupt, Redis failure) gives its token back, which also takes it out of
 * the queue and frees what an attempt without an answer may have taken.
 */
final class RedisAcquirer {

	/** The longest a waiter sleeps between two attempts, in milliseconds. */
	static final long RECHECK_MILLIS = 1000;

	/** How long a waiter's queue entry lives without an attempt, in milliseconds. */
	static final long ENTRY_MILLIS = 3 * RECHECK_MILLIS;

	/**
	 * How long a grant waits for a waiter that listens to take it up, in milliseconds, on
	 * top of twice the waiter's round trip; one that polls gets
	 * {@link GrantChannel#MAX_POLL_MILLIS} more.
	 */
	static final long CLAIM_MILLIS = 250;

	private final RedisLockCommands commands;

	private final ReleaseSignals signals;

	private final RedisLockSettings settings;

	private final LocalLocks locks;

	private final ActiveHolds active;

	private final LockObserver observer;

	RedisAcquirer(RedisLockCommands commands, ReleaseSignals signals, RedisLockSettings settings, LocalLocks locks,
			ActiveHolds active, LockObserver observer) {
		this.commands = commands;
		this.signals = signals;
		this.settings = settings;
		this.locks = locks;
		this.active = active;
		this.observer = observer;
	}

	/**
	 * Acquire a lock, waiting for it at most the given time; the hold is renewed or
	 * watched as its options say and told to the observer.
	 * @return the hold, or {@code null} if the lock was not acquired in time
	 */
	@Nullable RedisHold acquireLock(LockId id, Duration waitTime, LeaseOptions options) throws InterruptedException {
		Assert.isTrue(!waitTime.isNegative(), () -> "Wait time of lock '" + id.name + "' must not be negative");
		LocalLock lock = this.locks.retain(id);
		RedisHold hold = null;
		try {
			hold = acquire(id, waitTime, () -> new Acquisition(this.commands, lock, options, termsOf(options)));
			return hold;
		}
		finally {
			if (hold == null) {
				this.locks.release(lock);
			}
		}
	}

	/**
	 * Take a shared hold in watchdog mode, tracked and told to the observer like a
	 * lock's.
	 * @param attempt the script that tries, and its arguments
	 * @param waitTime how long to wait; zero tries once
	 * @return the hold, or {@code null} if not taken in time
	 */
	@Nullable RedisHold acquireShared(SharedAttempt attempt, Duration waitTime) throws InterruptedException {
		Assert.isTrue(!waitTime.isNegative(), () -> "Wait time of '" + attempt.id().name + "' must not be negative");
		return acquire(attempt.id(), waitTime,
				() -> new Acquisition(this.commands, attempt, termsOf(LeaseOptions.WATCHDOG)));
	}

	/**
	 * Take a hold, telling the observer of the wait: a hold taken is observed before the
	 * watchdog and the lease expiries know it, and then tracked.
	 * @param acquisition makes the acquisition, once the wait is observed
	 * @return the hold, or {@code null} if not taken in time
	 */
	private @Nullable RedisHold acquire(LockId id, Duration waitTime, Supplier<Acquisition> acquisition)
			throws InterruptedException {
		Deadline deadline = Deadline.after(waitTime);
		LockObserver.Wait wait = this.observer.waitStarted(id.name);
		RedisHold hold;
		try {
			hold = acquire(acquisition.get(), deadline);
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			wait.failed(ex);
			throw ex;
		}
		if (hold != null) {
			hold.observe(wait.acquired(hold.fencingToken));
			this.active.add(hold);
		}
		else {
			wait.notAcquired();
		}
		return hold;
	}

	/**
	 * Take a hold: wait for a lock's turn in this JVM, try once, then wait in the queue,
	 * trying again on every signal or re-check until the deadline.
	 * @return the hold, or {@code null} if the deadline passed first
	 */
	private @Nullable RedisHold acquire(Acquisition acquisition, Deadline deadline) throws InterruptedException {
		ReleaseSignals.Subscription subscription = null;
		boolean attempted = false;
		long roundTripMillis = 0;
		// The last attempt: its number, how it queued the waiter, and when it was sent
		long attempts = 0;
		Queueing last = Queueing.NONE;
		long sentNanos = 0;
		// Whether a hand-over may have taken this waiter out of the queue before its
		// attempt put it back
		boolean requeued = false;
		// Whether to try in Redis although this JVM holds the lock
		boolean recheckDue = false;
		try {
			if (!acquisition.awaitTurn(deadline)) {
				return acquisition.settle(null);
			}
			if (!deadline.isPast() && this.signals.grants().isListening()) {
				// Join the queue with the first attempt: no grant can be missed.
				subscription = this.signals.subscribe(acquisition.id.key);
			}
			while (true) {
				if (!acquisition.awaitTurn(deadline)) {
					// A hand-over to a waiter that was not first failed
					return acquisition.settle(null);
				}
				long generation = (subscription != null) ? subscription.generation() : 0;
				RedisHold handedOver = acquisition.handedOver();
				if (handedOver != null) {
					if (requeued) {
						acquisition.giveBack();
					}
					return handedOver;
				}
				RedisHold started = (subscription != null && last.waits())
						? acquisition.startOnGrant(subscription, last, sentNanos) : null;
				if (started != null) {
					return acquisition.settle(started);
				}
				long localHoldNanos = acquisition.localHoldNanos();
				if (localHoldNanos > 0 && subscription != null && !deadline.isPast() && !recheckDue) {
					// Handed over or woken by its release; a wait that no signal ended is
					// followed by an attempt, since Redis may have lost that hold
					long recheck = Math.min(localHoldNanos, TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS));
					subscription.await(generation, Math.min(recheck, deadline.remainingNanos()));
					recheckDue = subscription.generation() == generation;
					continue;
				}
				recheckDue = false;
				attempts++;
				last = (subscription != null && !deadline.isPast() && localHoldNanos == 0)
						? queueing(this.signals.grants(), roundTripMillis, attempts) : Queueing.NONE;
				sentNanos = System.nanoTime();
				attempted = true;
				long result = attempt(acquisition, last);
				roundTripMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentNanos);
				requeued = last.waits() && acquisition.isClaimed();
				if (result > 0 || deadline.isPast()) {
					RedisHold acquired = (result > 0) ? acquisition.hold(result, sentNanos) : null;
					if (acquired == null && last.waits()) {
						// The deadline passed while this attempt joined the queue.
						acquisition.giveBack();
					}
					return acquisition.settle(acquired);
				}
				if (subscription == null) {
					// Wait in the queue only once listening, so that no grant can be
					// missed.
					subscription = this.signals.subscribe(acquisition.id.key);
					continue;
				}
				long recheck = TimeUnit.MILLISECONDS
					.toNanos(Math.min(acquisition.recheckMillis(result), RECHECK_MILLIS));
				subscription.await(generation, Math.min(recheck, deadline.remainingNanos()));
			}
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			acquisition.abandon();
			if (attempted) {
				// Held by an attempt without an answer, granted, or waiting in the queue
				acquisition.giveBack();
			}
			throw ex;
		}
		finally {
			if (subscription != null) {
				subscription.close();
			}
			acquisition.close();
		}
	}

	/**
	 * Return how a waiter of this registry stands in a queue: listening on its channel,
	 * or polling with a longer claim time; either way with time for the grant's message
	 * and the attempt that takes it up to travel, twice its last round trip.
	 */
	static Queueing queueing(GrantChannel grants, long roundTripMillis, long attempt) {
		long claimMillis = CLAIM_MILLIS + 2 * roundTripMillis + (grants.isPolling() ? GrantChannel.MAX_POLL_MILLIS : 0);
		return new Queueing(true, ENTRY_MILLIS, claimMillis, grants.name(), attempt);
	}

	/**
	 * Return the lease and lock delay of a hold with the given options: theirs, or the
	 * settings' where they leave it open.
	 */
	private LeaseTerms termsOf(LeaseOptions options) {
		Duration leaseTime = (options.leaseTime() != null) ? options.leaseTime() : this.settings.leaseTime();
		Duration lockDelay = (options.lockDelay() != null) ? options.lockDelay() : this.settings.lockDelay();
		return new LeaseTerms(leaseTime.toMillis(), lockDelay.toMillis());
	}

	/**
	 * Run the attempt script once (and {@code WAIT} for replicas if configured). When no
	 * answer came, the caller gives the token back, so that a late acquisition does not
	 * keep a hold for a whole lease.
	 */
	private long attempt(Acquisition acquisition, Queueing queueing) {
		ReplicatedReply grant = this.commands.await(acquisition.send(queueing), "acquire " + acquisition.describe());
		this.commands.requireAcknowledged(acquisition.id.name, grant);
		return grant.reply();
	}

}
