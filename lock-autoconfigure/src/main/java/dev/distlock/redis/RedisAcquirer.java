package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.distlock.DistributedLockException;
import dev.distlock.LeaseOptions;
import org.jspecify.annotations.Nullable;

/**
 * Takes holds of locks in Redis for the thread of this JVM that holds the lock's local
 * permit: try, subscribe, sleep until a release signal or the holder's lease would run
 * out, try again; meanwhile accept a hold that a releasing thread of this JVM hands over
 * ({@link HandOver}). Every grant in Redis waits for {@code replicas-to-ack} replicas and
 * is given back when fewer acknowledged it.
 *
 * <p>
 * A waiter that stops by an exception (interrupt, Redis failure) abandons its offer, and
 * a hold handed over to it nonetheless is given back in Redis at once, so that a
 * hand-over never leaves a lock that nobody holds.
 */
final class RedisAcquirer {

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
	 * local hand-over, try once, subscribe to the lock's release signals, and try again
	 * on every signal or fallback re-check until the deadline.
	 * @return the hold, or {@code null} if the deadline passed first
	 */
	@Nullable RedisHold acquire(LocalLock lock, Deadline deadline, LeaseOptions options) throws InterruptedException {
		String token = LockTokens.next();
		LeaseTerms terms = termsOf(options);
		Handoff handoff = offer(lock, options, terms);
		ReleaseSignals.Subscription subscription = null;
		try {
			while (true) {
				long generation = (subscription != null) ? subscription.generation() : 0;
				if (handoff.isClaimed()) {
					RedisHold handedOver = handoff.awaitCompletion();
					if (handedOver != null) {
						return handedOver;
					}
					handoff = offer(lock, options, terms);
				}
				long sentNanos = System.nanoTime();
				int tokens = tokensToReserve(lock, options);
				long result = attempt(lock, token, terms, tokens);
				if (result > 0 || deadline.isPast()) {
					RedisHold acquired = (result > 0)
							? new RedisHold(lock.id, token, result - tokens + 1, result, sentNanos, terms, options)
							: null;
					return handoff.withdraw() ? acquired : eitherOf(handoff.awaitCompletion(), acquired);
				}
				if (subscription == null) {
					// Try again once subscribed, so that no release signal can be missed.
					subscription = this.signals.subscribe(lock.id.key);
					continue;
				}
				long recheck = TimeUnit.MILLISECONDS.toNanos(Math.max(1, -result));
				subscription.await(generation, Math.min(recheck, deadline.remainingNanos()));
			}
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			RedisHold orphan = handoff.abandon();
			if (orphan != null) {
				this.commands.giveBack(lock.id.name, lock.id.key, orphan.token);
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

	private static Handoff offer(LocalLock lock, LeaseOptions options, LeaseTerms terms) {
		Handoff handoff = new Handoff(options, terms);
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
			this.commands.giveBack(acquired.id.name, acquired.id.key, acquired.token);
		}
		return handedOver;
	}

	/**
	 * Run the acquire script once (and {@code WAIT} for replicas if configured). When no
	 * answer came, a release with the same token is sent so that a late acquisition does
	 * not block the lock for a whole lease.
	 */
	private long attempt(LocalLock lock, String token, LeaseTerms terms, int tokens) {
		try {
			RedisLockCommands.Grant grant = this.commands.await(this.commands.acquire(lock.id, token, terms, tokens),
					"acquire lock '" + lock.id.name + "'");
			this.commands.requireAcknowledged(lock.id.name, grant);
			return grant.reply();
		}
		catch (DistributedLockException ex) {
			this.commands.giveBack(lock.id.name, lock.id.key, token);
			throw ex;
		}
	}

}
