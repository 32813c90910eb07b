package dev.distlock.redis;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.distlock.DistributedLockException;
import dev.distlock.HoldKind;
import dev.distlock.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Releases holds. A hold is released in this JVM first (no longer renewed, no longer
 * listed). Then a lock is handed to a waiting thread of this JVM or released in Redis
 * (granted to the first waiter of its queue there), keeping the key until its minimum
 * hold time has passed; a shared hold's entry leaves its set of holders and the first
 * waiter of the queue is woken to try again. This JVM's waiters are woken either way. A
 * hold whose lease ran out before the release counts as lost, even if Redis still had its
 * key, and so does one whose release or hand-over Redis finds with only its lock delay
 * left (it reached Redis late). An interrupt does not end the wait for Redis' answer. The
 * hold's observation is told of the release once it is over.
 */
final class HoldRelease {

	private static final Log logger = LogFactory.getLog(RedisLockRegistry.class);

	private final RedisLockCommands commands;

	private final HandOver handOver;

	private final ReleaseSignals signals;

	private final LocalLocks locks;

	private final ActiveHolds active;

	/** Whether the holds were released in Redis for a registry that closes. */
	private volatile boolean closed;

	HoldRelease(RedisLockCommands commands, HandOver handOver, ReleaseSignals signals, LocalLocks locks,
			ActiveHolds active) {
		this.commands = commands;
		this.handOver = handOver;
		this.signals = signals;
		this.locks = locks;
		this.active = active;
	}

	/**
	 * Release a hold; a second release of the same hold does nothing.
	 * @throws LockLostException if the hold had been lost
	 * @throws DistributedLockException if Redis did not answer; the key then expires with
	 * its lease
	 */
	void release(RedisHold hold) {
		boolean expired;
		RedisHold.State before;
		// Under the hold's reporting lock: a loss being reported now is marked, observed
		// and its event queued before we go on.
		hold.reporting.lock();
		try {
			expired = !hold.isValid();
			if (!expired) {
				// Held until now: a take-up due before Redis answers is still sent
				hold.releasing(true);
			}
			before = hold.markReleased();
		}
		finally {
			hold.reporting.unlock();
		}
		if (before == RedisHold.State.RELEASED) {
			return;
		}
		if (before == RedisHold.State.HELD) {
			// Released before it was found lost: its loss actions never run. A hold found
			// lost first runs them on the thread that found the loss.
			hold.lossActions.drop();
		}
		this.active.remove(hold);
		boolean leaseOver = before != RedisHold.State.HELD || expired;
		try {
			boolean stillHeld = handOverOrRelease(hold, leaseOver);
			if (before == RedisHold.State.HELD && (!stillHeld || expired)) {
				this.active.report(hold, stillHeld ? "it was released after its lease ran out"
						: "its release found it expired or held by another owner");
			}
			if (!stillHeld || expired) {
				throw new LockLostException(hold.id.name.value(), hold.fencingToken, "Lock '" + hold.id.name
						+ "' was lost before its release (fencing token " + hold.fencingToken + ")");
			}
		}
		finally {
			hold.releasing(false);
			// After any loss the release found was reported
			hold.observation().released();
		}
	}

	/**
	 * Hand a lock over to a waiting thread of this JVM, or release the hold in Redis, and
	 * wake this JVM's waiters.
	 * @return whether Redis still had the hold's token (a lock's key, a shared hold's
	 * entry in its set of holders) with time left on its lease
	 */
	private boolean handOverOrRelease(RedisHold hold, boolean leaseOver) {
		LocalLock lock = (hold.kind == HoldKind.EXCLUSIVE) ? this.locks.held(hold.id) : null;
		HandOver.Outcome handedOver = HandOver.Outcome.NONE;
		try {
			handedOver = (lock != null && !leaseOver) ? this.handOver.offer(hold, lock) : HandOver.Outcome.NONE;
			if (handedOver != HandOver.Outcome.NONE) {
				return handedOver == HandOver.Outcome.DONE;
			}
			return !this.closed
					&& this.commands.awaitUninterruptibly(sendRelease(hold, leaseOver), describeRelease(hold));
		}
		finally {
			if (lock != null) {
				this.locks.release(lock);
				lock.holder.compareAndSet(hold, null);
			}
			if (handedOver == HandOver.Outcome.NONE) {
				// Redis tells only the waiters in its queue (of shared holds, only the
				// first), which this JVM's waiters may not be in: a lock's first waiter
				// stays out of it while a hold of this JVM is valid. A hand-over woke it
				// already.
				this.signals.fire(hold.id.key);
			}
		}
	}

	/**
	 * Release every hold still held, for a registry that closes, so that the next holder
	 * (another instance, typically) need not wait for the lease to run out. Each hold is
	 * first reported lost, as any loss is: its owner may still run its critical section,
	 * now unprotected, and learns it from {@code isValid()}, the loss event and actions,
	 * and its own release, which throws {@code LockLostException}. Then its key or entry
	 * is released in Redis as a lost hold's is, kept for the lock delay. Only Redis is
	 * touched: the hold stays its owner's in this JVM. The releases are sent together and
	 * then awaited, so that a Redis that does not answer delays the close by one command
	 * timeout, not one per hold; one Redis did not answer is logged, and its key expires
	 * with its lease. A release after this one sends nothing to Redis and finds the hold
	 * lost.
	 * @param reason why the holds are lost, for the reports
	 */
	void releaseHeld(String reason) {
		Map<RedisHold, CompletableFuture<Boolean>> releases = new LinkedHashMap<>();
		for (RedisHold hold : this.active.held()) {
			this.active.lost(hold, reason);
			if (hold.state() == RedisHold.State.LOST) {
				releases.put(hold, sendRelease(hold, true));
			}
		}
		releases.forEach((hold, reply) -> {
			try {
				this.commands.awaitUninterruptibly(reply, describeRelease(hold));
			}
			catch (RuntimeException ex) {
				logger.warn("Could not " + describeRelease(hold) + " (fencing token " + hold.fencingToken
						+ ") while closing; it expires with its lease", ex);
			}
			finally {
				this.signals.fire(hold.id.key);
			}
		});
		this.closed = true;
	}

	/**
	 * Send the release of a hold's key, or of its entry in its set of holders, to Redis.
	 */
	private CompletableFuture<Boolean> sendRelease(RedisHold hold, boolean leaseOver) {
		return (hold.kind == HoldKind.EXCLUSIVE)
				? this.commands.release(hold.id, hold.token, hold.keepMillis(), hold.terms().delayMillis(), leaseOver)
				: this.commands.releaseShare(hold.id, hold.kind, hold.token, hold.terms().delayMillis(), leaseOver);
	}

	private static String describeRelease(RedisHold hold) {
		return (hold.kind == HoldKind.EXCLUSIVE) ? "release lock '" + hold.id.name + "'"
				: "release " + hold.kind.label() + " hold of '" + hold.id.name + "'";
	}

}
