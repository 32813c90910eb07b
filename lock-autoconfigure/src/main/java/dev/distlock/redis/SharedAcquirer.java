package dev.distlock.redis;

import java.util.concurrent.TimeUnit;

import dev.distlock.LeaseOptions;
import dev.distlock.redis.renewal.LeaseTerms;
import org.jspecify.annotations.Nullable;

/**
 * Takes shared holds (read shares, semaphore permits) in Redis, in watchdog mode. It
 * tries once; while refused with time left, it waits in the queue of the read/write lock
 * or semaphore, where a release wakes the first live waiter to try again, and an attempt
 * is admitted only when no live waiter is queued before it. Every thread waits under a
 * token of its own, so many threads of one JVM may hold shares of one name.
 *
 * <p>
 * A waiter subscribes to release signals before it joins the queue, so that no wake-up is
 * missed, and re-checks at least every {@value RedisAcquirer#RECHECK_MILLIS} ms, or when
 * the first holder's entry expires, renewing its queue entry. A waiter whose wait time
 * ends leaves the queue with its last attempt; one that stops by an exception (interrupt,
 * Redis failure) gives its token back, which also takes it out of the queue and out of
 * the set of holders, should an attempt without an answer have admitted it. Every
 * admission waits for {@code replicas-to-ack} replicas and is given back when fewer
 * acknowledged it.
 */
final class SharedAcquirer {

	private final RedisLockCommands commands;

	private final ReleaseSignals signals;

	private final LeaseTerms terms;

	SharedAcquirer(RedisLockCommands commands, ReleaseSignals signals, RedisLockSettings settings) {
		this.commands = commands;
		this.signals = signals;
		this.terms = new LeaseTerms(settings.leaseTime().toMillis(), settings.lockDelay().toMillis());
	}

	/**
	 * Take a shared hold: try once, then wait in the queue, trying again on every signal
	 * or re-check until the deadline.
	 * @param attempt the script that tries, and its arguments
	 * @param deadline when to give up
	 * @return the hold, renewed by the watchdog once tracked, or {@code null} if the
	 * deadline passed first
	 */
	@Nullable RedisHold acquire(SharedAttempt attempt, Deadline deadline) throws InterruptedException {
		String token = LockTokens.next();
		ReleaseSignals.Subscription subscription = null;
		boolean attempted = false;
		long roundTripMillis = 0;
		try {
			if (!deadline.isPast() && this.signals.isListening()) {
				// Join the queue with the first attempt: no wake-up can be missed.
				subscription = this.signals.subscribe(attempt.id().key);
			}
			while (true) {
				long generation = (subscription != null) ? subscription.generation() : 0;
				RedisLockCommands.Queueing queueing = (subscription != null && !deadline.isPast())
						? RedisAcquirer.queueing(this.signals, roundTripMillis) : RedisLockCommands.Queueing.NONE;
				long sentNanos = System.nanoTime();
				attempted = true;
				long result = attempt(attempt, token, queueing);
				roundTripMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentNanos);
				if (result > 0) {
					return new RedisHold(attempt.id(), attempt.kind(), token, result, result, sentNanos, this.terms,
							LeaseOptions.WATCHDOG);
				}
				if (deadline.isPast()) {
					if (queueing.waits()) {
						// The deadline passed while this attempt joined the queue.
						this.commands.giveBack(attempt.id(), attempt.kind(), token, this.terms);
					}
					return null;
				}
				if (subscription == null) {
					// Wait in the queue only once listening, so that no wake-up can be
					// missed.
					subscription = this.signals.subscribe(attempt.id().key);
					continue;
				}
				long recheck = TimeUnit.MILLISECONDS.toNanos(
						(result < 0) ? Math.min(-result, RedisAcquirer.RECHECK_MILLIS) : RedisAcquirer.RECHECK_MILLIS);
				subscription.await(generation, Math.min(recheck, deadline.remainingNanos()));
			}
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			if (attempted) {
				// Admitted by an attempt without an answer, or waiting in the queue
				this.commands.giveBack(attempt.id(), attempt.kind(), token, this.terms);
			}
			throw ex;
		}
		finally {
			if (subscription != null) {
				subscription.close();
			}
		}
	}

	/**
	 * Run the attempt script once (and {@code WAIT} for replicas if configured). When no
	 * answer came, the caller gives the token back, so that a late admission does not
	 * keep a share for a whole lease.
	 */
	private long attempt(SharedAttempt attempt, String token, RedisLockCommands.Queueing queueing) {
		RedisLockCommands.Grant grant = this.commands.await(
				this.commands.acquireShare(attempt, token, this.terms, queueing),
				"acquire " + attempt.kind().label + " hold of '" + attempt.id().name + "'");
		this.commands.requireAcknowledged(attempt.id().name, grant);
		return grant.reply();
	}

}
