package dev.distlock.redis;

import dev.distlock.DistributedLockException;
import dev.distlock.LockLostException;

/**
 * Releases holds. A hold is released in this JVM first (no longer renewed, no longer
 * listed), then handed to a waiting thread of this JVM or released in Redis (granted to
 * the first waiter of its queue there), keeping the key until its minimum hold time has
 * passed; this JVM's waiter is woken either way. A hold whose lease ran out before the
 * release counts as lost, even if Redis still had its key. An interrupt does not end the
 * wait for Redis' answer. The hold's observation is told of the release once it is over.
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
		// Under the hold's reporting lock: a loss being reported now is published before
		// we go on.
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
		try {
			handOverOrRelease(hold, before, expired);
		}
		finally {
			hold.observation().released();
		}
	}

	/**
	 * Hand a hold released in this JVM to the local waiter, or release it in Redis.
	 * @param before the hold's state before its release
	 * @param expired whether its lease had run out by then
	 */
	private void handOverOrRelease(RedisHold hold, RedisHold.State before, boolean expired) {
		LocalLock lock = this.locks.held(hold.id);
		boolean stillHeld;
		HandOver.Outcome handedOver = HandOver.Outcome.NONE;
		try {
			handedOver = (before == RedisHold.State.HELD && !expired) ? this.handOver.offer(hold, lock)
					: HandOver.Outcome.NONE;
			stillHeld = (handedOver != HandOver.Outcome.NONE) ? handedOver == HandOver.Outcome.DONE
					: this.commands
						.awaitUninterruptibly(
								this.commands.release(hold.id, hold.token, hold.keepMillis(), hold.terms.delayMillis(),
										before != RedisHold.State.HELD || expired),
								"release lock '" + hold.id.name + "'");
		}
		finally {
			this.locks.release(lock);
			lock.holder.compareAndSet(hold, null);
			if (handedOver == HandOver.Outcome.NONE) {
				// Redis tells only the waiters in the queue; this JVM's waiter may not be
				// in
				// it yet. A hand-over woke its waiter already.
				this.signals.fire(hold.id.key);
			}
		}
		if (before == RedisHold.State.HELD && (!stillHeld || expired)) {
			this.active.report(hold, stillHeld ? "it was released after its lease ran out"
					: "its release found it expired or held by another owner");
		}
		if (!stillHeld || expired) {
			throw new LockLostException(hold.id.name.value(), hold.fencingToken, "Lock '" + hold.id.name
					+ "' was lost before its release (fencing token " + hold.fencingToken + ")");
		}
	}

}
