package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.distlock.LeaseOptions;
import dev.distlock.redis.renewal.LeaseTerms;
import org.jspecify.annotations.Nullable;

/**
 * Takes holds of locks in Redis for the thread of this JVM that holds the lock's local
 * permit. It tries once; when the lock is taken and it may wait, it waits in the lock's
 * queue in Redis, where a release grants the lock to the first waiter and wakes that
 * waiter alone, which then takes the grant up with its next attempt. Meanwhile it accepts
 * a hold that a releasing thread of this JVM hands over ({@link HandOver}). Every grant
 * in Redis waits for {@code replicas-to-ack} replicas and is given back when fewer
 * acknowledged it.
 *
 * <p>
 * A waiter re-checks at least every {@value #RECHECK_MILLIS} ms, renewing its queue
 * entry, which lives {@value #ENTRY_MILLIS} ms: a waiter that died is skipped once that
 * passed. A grant waits {@value #CLAIM_MILLIS} ms, plus twice the waiter's last round
 * trip, for its waiter to take it up; then the next attempt of any waiter that finds the
 * lock free grants it to the next. A waiter that gives up leaves the queue with its last
 * attempt, or gives its token back.
 *
 * <p>
 * A waiter that stops by an exception (interrupt, Redis failure) abandons its offer, and
 * a hold handed over to it nonetheless is given back in Redis at once, so that a
 * hand-over never leaves a lock that nobody holds.
 */
final class RedisAcquirer {

	/** The longest a waiter sleeps between two attempts, in milliseconds. */
	static final long RECHECK_MILLIS = 1000;

	/** How long a waiter's queue entry lives without an attempt, in milliseconds. */
	static final long ENTRY_MILLIS = 3 * RECHECK_MILLIS;

	/**
	 * How long a grant waits for a waiter that listens to take it up, in milliseconds, on
	 * top of twice the waiter's round trip; one that polls gets
	 * {@link ReleaseSignals#MAX_POLL_MILLIS} more.
	 */
	static final long CLAIM_MILLIS = 250;

	private final RedisLockCommands commands;

	private final ReleaseSignals signals;

	private final RedisLockSettings settings;

	RedisAcquirer(RedisLockCommands commands, ReleaseSignals signals, RedisLockSettings settings) {
		this.commands = commands;
		this.signals = signals;
		this.settings = settings;
	}

	/**
	 * Acquire the lock in Redis for the thread holding its local permit: offer to take a
	 * local hand-over, try once, then wait in the lock's queue, trying again on every
	 * signal or re-check until the deadline.
	 * @return the hold, or {@code null} if the deadline passed first
	 */
	@Nullable RedisHold acquire(LocalLock lock, Deadline deadline, LeaseOptions options) throws InterruptedException {
		String token = LockTokens.next();
		LeaseTerms terms = termsOf(options);
		Handoff handoff = offer(lock, options, terms, token);
		ReleaseSignals.Subscription subscription = null;
		boolean attempted = false;
		long roundTripMillis = 0;
		// Whether a hand-over may have taken this waiter out of the queue before its
		// attempt put it back
		boolean requeued = false;
		try {
			if (!deadline.isPast() && this.signals.isListening()) {
				// Join the queue with the first attempt: no grant can be missed.
				subscription = this.signals.subscribe(lock.id.key);
			}
			while (true) {
				long generation = (subscription != null) ? subscription.generation() : 0;
				if (handoff.isClaimed()) {
					RedisHold handedOver = handoff.awaitCompletion();
					if (handedOver != null) {
						if (requeued) {
							this.commands.giveBack(lock.id, token, terms);
						}
						return handedOver;
					}
					handoff = offer(lock, options, terms, token);
				}
				RedisLockCommands.Queueing queueing = (subscription != null && !deadline.isPast() && !isHeldHere(lock))
						? queueing(this.signals, roundTripMillis) : RedisLockCommands.Queueing.NONE;
				long sentNanos = System.nanoTime();
				int tokens = tokensToReserve(lock, options);
				attempted = true;
				long result = attempt(lock, token, terms, tokens, queueing);
				roundTripMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentNanos);
				requeued = queueing.waits() && handoff.isClaimed();
				if (result > 0 || deadline.isPast()) {
					RedisHold acquired = (result > 0) ? new RedisHold(lock.id, HoldKind.EXCLUSIVE, token,
							result - tokens + 1, result, sentNanos, terms, options) : null;
					if (acquired == null && queueing.waits()) {
						// The deadline passed while this attempt joined the queue.
						this.commands.giveBack(lock.id, token, terms);
					}
					return handoff.withdraw() ? acquired : eitherOf(handoff.awaitCompletion(), acquired);
				}
				if (subscription == null) {
					// Wait in the queue only once listening, so that no grant can be
					// missed.
					subscription = this.signals.subscribe(lock.id.key);
					continue;
				}
				long recheck = TimeUnit.MILLISECONDS.toNanos(Math.min(Math.max(1, -result), RECHECK_MILLIS));
				subscription.await(generation, Math.min(recheck, deadline.remainingNanos()));
			}
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			RedisHold orphan = handoff.abandon();
			if (orphan != null) {
				this.commands.giveBack(lock.id, orphan.token, orphan.terms());
			}
			if (attempted) {
				// Held by an attempt without an answer, granted, or waiting in the queue
				this.commands.giveBack(lock.id, token, terms);
			}
			throw ex;
		}
		finally {
			if (subscription != null) {
				subscription.close();
			}
			lock.waiter.compareAndSet(handoff, null);
		}
	}

	/**
	 * Return whether a thread of this JVM holds the lock: its release hands it over to
	 * this waiter or wakes it, so the waiter need not wait in Redis' queue meanwhile, and
	 * joins it only once another process has the lock.
	 */
	private static boolean isHeldHere(LocalLock lock) {
		RedisHold holder = lock.holder.get();
		return holder != null && holder.isValid();
	}

	/**
	 * Return how a waiter of this registry stands in a queue: listening on its channel,
	 * or polling with a longer claim time; either way with time for the grant's message
	 * and the attempt that takes it up to travel, twice its last round trip.
	 */
	static RedisLockCommands.Queueing queueing(ReleaseSignals signals, long roundTripMillis) {
		long claimMillis = CLAIM_MILLIS + 2 * roundTripMillis
				+ (signals.isPolling() ? ReleaseSignals.MAX_POLL_MILLIS : 0);
		return new RedisLockCommands.Queueing(true, ENTRY_MILLIS, claimMillis, signals.channel());
	}

	/**
	 * Return how many fencing tokens to reserve: one, plus one for each thread of this
	 * JVM queued behind this one (at most {@value HandOver#MAX_IN_A_ROW}), so that the
	 * hold can be passed on to them without a round trip.
	 */
	private static int tokensToReserve(LocalLock lock, LeaseOptions options) {
		return (options.leaseTime() != null) ? 1 : 1 + Math.min(lock.permit.getQueueLength(), HandOver.MAX_IN_A_ROW);
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

	private static Handoff offer(LocalLock lock, LeaseOptions options, LeaseTerms terms, String token) {
		Handoff handoff = new Handoff(options, terms, token);
		lock.waiter.set(handoff);
		return handoff;
	}

	/**
	 * Return the hold a waiter ends up with when a hand-over and its own attempt both
	 * succeeded, which only a lease that ran out in between allows: the handed-over one,
	 * giving the other back.
	 */
	private @Nullable RedisHold eitherOf(@Nullable RedisHold handedOver, @Nullable RedisHold acquired) {
		if (handedOver == null) {
			return acquired;
		}
		if (acquired != null) {
			this.commands.giveBack(acquired.id, acquired.token, acquired.terms());
		}
		return handedOver;
	}

	/**
	 * Run the acquire script once (and {@code WAIT} for replicas if configured). When no
	 * answer came, the caller gives the token back, so that a late acquisition does not
	 * block the lock for a whole lease.
	 */
	private long attempt(LocalLock lock, String token, LeaseTerms terms, int tokens,
			RedisLockCommands.Queueing queueing) {
		RedisLockCommands.Grant grant = this.commands.await(
				this.commands.acquire(lock.id, token, terms, tokens, queueing), "acquire lock '" + lock.id.name + "'");
		this.commands.requireAcknowledged(lock.id.name, grant);
		return grant.reply();
	}

}
