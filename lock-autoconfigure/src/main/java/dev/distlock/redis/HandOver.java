package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;

import dev.distlock.HoldKind;
import dev.distlock.redis.connection.ReplicatedReply;
import org.jspecify.annotations.Nullable;

/**
 * Hands a released hold straight to the first thread of this JVM that waits for the lock
 * and has not been handed one ({@link LocalLock}), even one that has not run since it
 * started waiting, at most {@value #MAX_IN_A_ROW} times in a row so that other processes
 * get their turn. A hold with a minimum hold time left is never handed over.
 *
 * <p>
 * The transfer script checks in Redis that the releasing hold's token is still held,
 * stores the waiter's token with the waiter's lease, issues the next fencing token and
 * takes the waiter out of the lock's queue, in one round trip. The waiter is woken where
 * that answer arrives, without waiting for the releasing thread to run again, and only
 * then, so it never holds what Redis does not have: a transfer that Redis refused (it
 * lost its data, say) reports the releasing hold lost, and the waiter goes on waiting and
 * acquires the lock in Redis. With {@code replicas-to-ack}, a transfer that too few
 * replicas acknowledged is given back and the waiter goes on waiting too. A hold whose
 * lease Redis finds over (only its lock delay keeps the key) is not handed over: the key
 * stays blocked for the rest of the delay, the release reports the hold lost and the
 * waiter goes on waiting.
 *
 * <p>
 * A lock whose releasing thread keeps the read lock of its name (it took the read lock
 * while it held the write lock: a downgrade) is not handed over either: another thread
 * may not write while that thread reads. It goes back to Redis, whose release script
 * grants it to nobody while read shares last.
 */
final class HandOver {

	/** Hand-overs to a waiter of this JVM in a row before the lock goes back to Redis. */
	static final int MAX_IN_A_ROW = 8;

	/** What became of a release offered to this JVM's waiters. */
	enum Outcome {

		/** Not handed over: release the lock in Redis. */
		NONE,

		/** Still held until now, and gone from this holder. */
		DONE,

		/** Redis no longer had the hold, or only its lock delay kept it: it was lost. */
		LOST

	}

	private final RedisLockCommands commands;

	private final ReleaseSignals signals;

	private final OwnedLocks owned;

	/**
	 * Create the hand-overs of one registry.
	 * @param owned the locks and read shares the releasing thread owns
	 */
	HandOver(RedisLockCommands commands, ReleaseSignals signals, OwnedLocks owned) {
		this.commands = commands;
		this.signals = signals;
		this.owned = owned;
	}

	/**
	 * Hand a released hold to the first waiting thread of this JVM, if there is one and
	 * fewer than {@value #MAX_IN_A_ROW} hand-overs happened in a row, and the releasing
	 * thread does not read under the lock.
	 * @param hold a hold just marked released by the current thread, whose lease had time
	 * left
	 * @param lock this JVM's entry of the hold's lock
	 * @return what became of it
	 */
	Outcome offer(RedisHold hold, LocalLock lock) {
		Handoff handoff = mayHandOver(hold, lock) ? lock.claimFirstOffer() : null;
		if (handoff == null) {
			lock.handoffs = 0;
			return Outcome.NONE;
		}
		return transfer(hold, lock, handoff);
	}

	private boolean mayHandOver(RedisHold hold, LocalLock lock) {
		return hold.keepMillis() <= 0 && lock.handoffs < MAX_IN_A_ROW
				&& this.owned.find(HoldKind.READ_SHARE, hold.id.name) == null;
	}

	private Outcome transfer(RedisHold hold, LocalLock lock, Handoff handoff) {
		Acquisition waiter = handoff.acquisition;
		String token = LockTokens.next();
		long sentNanos = System.nanoTime();
		CompletableFuture<ReplicatedReply> grant = null;
		try {
			grant = this.commands.transfer(lock.id, hold.token, hold.terms(), token, waiter.terms, waiter.token);
		}
		finally {
			if (grant == null) {
				complete(lock, handoff, token, sentNanos, null);
			}
		}
		// The waiter is woken where Redis answers, not once this thread runs again
		CompletableFuture<?> completed = grant.handle((reply, ex) -> {
			complete(lock, handoff, token, sentNanos, reply);
			return null;
		});
		try {
			return (this.commands.awaitUninterruptibly(grant, "hand lock '" + lock.id.name + "' over").reply() > 0)
					? Outcome.DONE : Outcome.LOST;
		}
		finally {
			// A grant this thread no longer waits for is cancelled, which completes the
			// offer here with nothing handed over; the completion waits for nothing
			grant.cancel(false);
			completed.join();
		}
	}

	/**
	 * Complete a claimed offer with the hold a transfer granted, or with nothing, and
	 * give the transfer's token back unless the waiter took it. The offer is completed
	 * however this ends, so that the waiter never stays parked.
	 */
	private void complete(LocalLock lock, Handoff handoff, String token, long sentNanos,
			@Nullable ReplicatedReply grant) {
		Acquisition waiter = handoff.acquisition;
		RedisHold next = null;
		try {
			if (grant != null && grant.reply() > 0 && this.commands.isAcknowledged(grant)) {
				next = new RedisHold(lock.id, HoldKind.EXCLUSIVE, token, grant.reply(), sentNanos, waiter.terms,
						waiter.options);
				lock.handoffs++;
			}
		}
		finally {
			boolean taken = handoff.complete(next);
			// Wake the waiter at once also when it sleeps on the lock's release signal
			this.signals.fire(lock.id.key);
			if (next == null || !taken) {
				// Failed, refused for want of replicas, or the waiter gave up meanwhile
				this.commands.giveBack(lock.id, token, waiter.terms);
			}
		}
	}

}
