package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.DistributedLockException;
import dev.distlock.LeaseOptions;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Takes holds of locks in Redis and passes them between threads of this JVM: the waiting
 * side (try, subscribe, sleep until a release signal or the holder's lease would run out,
 * try again) and the releasing side's hand-over of a hold straight to the local waiter in
 * one round trip, at most {@value #MAX_HANDOFFS} times in a row so that other processes get
 * their turn.
 */
final class RedisAcquirer {

	/** Hand-overs to a waiter of this JVM in a row before the lock goes back to Redis. */
	static final int MAX_HANDOFFS = 4;

	private static final Log logger = LogFactory.getLog(RedisAcquirer.class);

	private static final long HANDOFF_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private final RedisLockCommands commands;

	private final ReleaseSignals signals;

	private final RedisLockSettings settings;

	RedisAcquirer(RedisLockCommands commands, ReleaseSignals signals, RedisLockSettings settings) {
		this.commands = commands;
		this.signals = signals;
		this.settings = settings;
	}

	/**
	 * Acquire the lock in Redis for the thread holding its local permit: try once, then
	 * subscribe to its release signals, offer to take a local hand-over, and try again on
	 * every signal or fallback re-check until the deadline.
	 * @return the hold, or {@code null} if the deadline passed first
	 */
	@Nullable RedisHold acquire(LocalLock lock, Deadline deadline, LeaseOptions options)
			throws InterruptedException {
		String token = LockTokens.next();
		Duration leaseTime = options.leaseTime();
		long leaseMillis = (leaseTime != null) ? leaseTime.toMillis() : this.settings.leaseTime().toMillis();
		long sentNanos = System.nanoTime();
		long result = attempt(lock, token, leaseMillis);
		if (result > 0) {
			return new RedisHold(lock, token, result, sentNanos, leaseMillis, options);
		}
		if (deadline.isPast()) {
			return null;
		}
		try (ReleaseSignals.Subscription subscription = this.signals.subscribe(lock.key)) {
			Handoff handoff = offer(lock, options, leaseMillis);
			try {
				while (true) {
					long generation = subscription.generation();
					if (handoff.isCompleted()) {
						RedisHold handedOver = handoff.hold();
						if (handedOver != null) {
							return handedOver;
						}
						handoff = offer(lock, options, leaseMillis);
					}
					if (!handoff.isClaimed()) {
						sentNanos = System.nanoTime();
						result = attempt(lock, token, leaseMillis);
						if (result > 0 || deadline.isPast()) {
							RedisHold acquired = (result > 0)
									? new RedisHold(lock, token, result, sentNanos, leaseMillis, options) : null;
							return handoff.withdraw() ? acquired : awaitHandoff(handoff, subscription, acquired);
						}
					}
					long recheck = handoff.isClaimed() ? HANDOFF_RECHECK_NANOS
							: TimeUnit.MILLISECONDS.toNanos(Math.max(1, -result));
					subscription.await(generation, Math.min(recheck, deadline.remainingNanos()));
				}
			}
			finally {
				lock.waiter.compareAndSet(handoff, null);
			}
		}
	}

	private static Handoff offer(LocalLock lock, LeaseOptions options, long leaseMillis) {
		Handoff handoff = new Handoff(options, leaseMillis);
		lock.waiter.set(handoff);
		return handoff;
	}

	/**
	 * Wait for a claimed hand-over to complete (bounded by the releasing thread's command
	 * timeout) and return what this waiter ends up holding.
	 */
	private static @Nullable RedisHold awaitHandoff(Handoff handoff, ReleaseSignals.Subscription subscription,
			@Nullable RedisHold acquired) throws InterruptedException {
		while (!handoff.isCompleted()) {
			subscription.await(subscription.generation(), HANDOFF_RECHECK_NANOS);
		}
		return (handoff.hold() != null) ? handoff.hold() : acquired;
	}

	/**
	 * Run the acquire script once (and {@code WAIT} for replicas if configured). When no
	 * answer came, a release with the same token is sent so that a late acquisition does not
	 * block the lock for a whole lease.
	 */
	private long attempt(LocalLock lock, String token, long leaseMillis) {
		int replicas = this.settings.replicasToAck();
		try {
			if (replicas == 0) {
				return this.commands.await(this.commands.acquire(lock.key, lock.fenceKey, token, leaseMillis),
						"acquire lock '" + lock.name + "'");
			}
			long[] reply = this.commands.await(this.commands.acquireAndWait(lock.key, lock.fenceKey, token,
					leaseMillis, replicas, this.settings.replicaAckTimeout()), "acquire lock '" + lock.name + "'");
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
			CompletableFuture<Boolean> released = this.commands.release(lock.key, token, 0);
			released.exceptionally((ex) -> false);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not send release of unconfirmed acquisition of lock '" + lock.name + "'", ex);
		}
	}

	/**
	 * Hand a released hold straight to the thread of this JVM waiting for the lock, if there
	 * is one and fewer than {@value #MAX_HANDOFFS} hand-overs happened in a row.
	 * @return whether the hold was still ours (and was handed over), or {@code null} if no
	 * hand-over was attempted
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
			String token = LockTokens.next();
			long sentNanos = System.nanoTime();
			long fencingToken = this.commands.await(
					this.commands.transfer(lock.key, lock.fenceKey, hold.token, token, handoff.leaseMillis),
					"hand lock '" + lock.name + "' over");
			if (fencingToken > 0) {
				next = new RedisHold(lock, token, fencingToken, sentNanos, handoff.leaseMillis, handoff.options);
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
