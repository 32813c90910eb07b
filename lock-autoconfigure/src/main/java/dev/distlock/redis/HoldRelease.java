package dev.distlock.redis;

import dev.distlock.DistributedLockException;
import dev.distlock.LockLostException;

/**
 * Releases holds. A hold is released in this JVM first (no longer renewed, no longer
 * listed). Then a lock is handed to a waiting thread of this JVM or released in Redis
 * (granted to the first waiter of its queue there), keeping the key until its minimum
 * hold time has passed; a shared hold's entry leaves its set of holders and the first
 * waiter of the queue is woken to try again. This JVM's waiters are woken either way. A
 * hold whose lease ran out before the release counts as lost, even if Redis still had its
 * key. An interrupt does not end the wait for Redis' answer. The hold's observation is
 * told of the release once it is over.
 */
final class HoldRelease {

	private final RedisLockCommands commands;

	private final HandOver handOver;

	private final ReleaseSignals signals;

	private final LocalLocks locks;

	private final ActiveHolds active;

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
			boolean stillHeld = (hold.kind == HoldKind.EXCLUSIVE) ? releaseLock(hold, leaseOver)
					: releaseShare(hold, leaseOver);
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
			// After any loss the release found was reported
			hold.observation().released();
		}
	}

	/**
	 * Hand a lock over to a waiting thread of this JVM, or release it in Redis, and wake
	 * this JVM's waiter.
	 * @return whether the lock still held the hold's token
	 */
	private boolean releaseLock(RedisHold hold, boolean leaseOver) {
		LocalLock lock = this.locks.held(hold.id);
		HandOver.Outcome handedOver = HandOver.Outcome.NONE;
		try {
			handedOver = (!leaseOver) ? this.handOver.offer(hold, lock) : HandOver.Outcome.NONE;
			return (handedOver != HandOver.Outcome.NONE) ? handedOver == HandOver.Outcome.DONE
					: this.commands.awaitUninterruptibly(this.commands.release(hold.id, hold.token, hold.keepMillis(),
							hold.terms.delayMillis(), leaseOver), "release lock '" + hold.id.name + "'");
		}
		finally {
			this.locks.release(lock);
			lock.holder.compareAndSet(hold, null);
			if (handedOver == HandOver.Outcome.NONE) {
				// Redis tells only the waiters in the queue; this JVM's waiter may not be
				// in it yet. A hand-over woke its waiter already.
				this.signals.fire(hold.id.key);
			}
		}
	}

	/**
	 * Release a shared hold in Redis, and wake this JVM's waiters.
	 * @return whether the set of holders still had the hold's entry
	 */
	private boolean releaseShare(RedisHold hold, boolean leaseOver) {
		try {
			return this.commands.awaitUninterruptibly(
					this.commands.releaseShare(hold.id, hold.kind, hold.token, hold.terms.delayMillis(), leaseOver),
					"release " + hold.kind.label + " hold of '" + hold.id.name + "'");
		}
		finally {
			// Redis wakes only the first waiter in the queue; this JVM's waiters may not
			// be in it yet.
			this.signals.fire(hold.id.key);
		}
	}

}
