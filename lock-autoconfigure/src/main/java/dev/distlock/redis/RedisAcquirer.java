package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.DistributedLockException;
import dev.distlock.LeaseOptions;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Takes holds of locks in Redis and passes them between threads of this JVM: the waiting
 * side (try, subscribe, sleep until a release signal or the holder's lease would run out,
 * try again) and the releasing side's hand-over of a hold straight to the local waiter,
 * at most {@value #MAX_HANDOFFS} times in a row so that other processes get their turn.
 *
 * <p>
 * An acquisition with threads of this JVM queued behind it reserves a fencing token for
 * each of them; a hand-over then passes the Redis key on with the next reserved token and
 * no round trip. Without a reserved token left (or with a fixed lease), the hand-over
 * runs the transfer script, one round trip that issues the next token. Either way every
 * hold gets a fencing token greater than all tokens issued before it.
 */
final class RedisAcquirer {

	/** Hand-overs to a waiter of this JVM in a row before the lock goes back to Redis. */
	static final int MAX_HANDOFFS = 8;

	private static final Log logger = LogFactory.getLog(RedisAcquirer.class);

	private static final long HANDOFF_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private static final long HANDOFF_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

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
		Duration leaseTime = options.leaseTime();
		long leaseMillis = (leaseTime != null) ? leaseTime.toMillis() : this.settings.leaseTime().toMillis();
		Handoff handoff = offer(lock, options, leaseMillis);
		ReleaseSignals.Subscription subscription = null;
		try {
			long result = 0;
			while (true) {
				long generation = (subscription != null) ? subscription.generation() : 0;
				if (handoff.isCompleted()) {
					RedisHold handedOver = handoff.hold();
					if (handedOver != null) {
						return handedOver;
					}
					handoff = offer(lock, options, leaseMillis);
				}
				if (!handoff.isClaimed()) {
					long sentNanos = System.nanoTime();
					int tokens = tokensToReserve(lock, options);
					result = attempt(lock, token, leaseMillis, tokens);
					if (result > 0 || deadline.isPast()) {
						RedisHold acquired = (result > 0) ? new RedisHold(lock, token, result - tokens + 1, result,
								sentNanos, leaseMillis, options) : null;
						return handoff.withdraw() ? acquired : awaitHandoff(handoff, acquired);
					}
				}
				if (subscription == null) {
					// Try again once subscribed, so that no release signal can be missed.
					subscription = this.signals.subscribe(lock.key);
					continue;
				}
				long recheck = handoff.isClaimed() ? HANDOFF_RECHECK_NANOS
						: TimeUnit.MILLISECONDS.toNanos(Math.max(1, -result));
				subscription.await(generation, Math.min(recheck, deadline.remainingNanos()));
			}
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
	 * JVM queued behind this one (at most {@value #MAX_HANDOFFS}), so that the hold can
	 * be passed on to them without a round trip.
	 */
	private static int tokensToReserve(LocalLock lock, LeaseOptions options) {
		return (options.leaseTime() != null) ? 1 : 1 + Math.min(lock.permit.getQueueLength(), MAX_HANDOFFS);
	}

	private static Handoff offer(LocalLock lock, LeaseOptions options, long leaseMillis) {
		Handoff handoff = new Handoff(options, leaseMillis);
		lock.waiter.set(handoff);
		return handoff;
	}

	/**
	 * Wait for a claimed hand-over to complete (at once for a pass-on, within the
	 * releasing thread's command timeout for a transfer) and return what this waiter ends
	 * up holding.
	 */
	private static @Nullable RedisHold awaitHandoff(Handoff handoff, @Nullable RedisHold acquired) {
		while (!handoff.isCompleted()) {
			LockSupport.parkNanos(HANDOFF_POLL_NANOS);
		}
		RedisHold handedOver = handoff.hold();
		return (handedOver != null) ? handedOver : acquired;
	}

	/**
	 * Run the acquire script once (and {@code WAIT} for replicas if configured). When no
	 * answer came, a release with the same token is sent so that a late acquisition does
	 * not block the lock for a whole lease.
	 */
	private long attempt(LocalLock lock, String token, long leaseMillis, int tokens) {
		int replicas = this.settings.replicasToAck();
		try {
			if (replicas == 0) {
				return this.commands.await(this.commands.acquire(lock.key, lock.fenceKey, token, leaseMillis, tokens),
						"acquire lock '" + lock.name + "'");
			}
			long[] reply = this.commands.await(this.commands.acquireAndWait(lock.key, lock.fenceKey, token, leaseMillis,
					tokens, replicas, this.settings.replicaAckTimeout()), "acquire lock '" + lock.name + "'");
			if (reply[0] > 0 && reply[1] < replicas) {
				throw new DistributedLockException("Lock '" + lock.name + "' was refused: " + reply[1] + " of "
						+ replicas + " replicas acknowledged it within " + this.settings.replicaAckTimeout()
						+ " (distlock.redis.replicas-to-ack)");
			}
			return reply[0];
		}
		catch (DistributedLockException ex) {
			releaseQuietly(lock, token);
			throw ex;
		}
	}

	private void releaseQuietly(LocalLock lock, String token) {
		try {
			// Fire and forget: the reply, or its failure, changes nothing here.
			this.commands.release(lock.key, token, 0);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not send release of unconfirmed acquisition of lock '" + lock.name + "'", ex);
		}
	}

	/**
	 * Hand a released hold straight to the thread of this JVM waiting for the lock, if
	 * there is one and fewer than {@value #MAX_HANDOFFS} hand-overs happened in a row.
	 * @return whether the hold was still ours (and was handed over), or {@code null} if
	 * no hand-over was attempted
	 */
	@Nullable Boolean handOver(RedisHold hold) {
		LocalLock lock = hold.lock;
		Handoff handoff = lock.waiter.get();
		if (hold.keepMillis() > 0 || lock.handoffs >= MAX_HANDOFFS || handoff == null || !handoff.claim()) {
			lock.handoffs = 0;
			return null;
		}
		RedisHold next = null;
		try {
			if (hold.canPassOn(handoff.options)) {
				next = hold.passOn(handoff.options);
				lock.handoffs++;
				return true;
			}
			String token = LockTokens.next();
			long sentNanos = System.nanoTime();
			long fencingToken = this.commands.await(
					this.commands.transfer(lock.key, lock.fenceKey, hold.token, token, handoff.leaseMillis),
					"hand lock '" + lock.name + "' over");
			if (fencingToken > 0) {
				next = new RedisHold(lock, token, fencingToken, fencingToken, sentNanos, handoff.leaseMillis,
						handoff.options);
				lock.handoffs++;
			}
			return fencingToken > 0;
		}
		finally {
			handoff.complete(next);
			this.signals.fire(lock.key);
		}
	}

}
