package dev.distlock.redis;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * What one JVM knows of one lock: the offers of this JVM's threads that wait for it, and
 * the hold this JVM has of it, if any.
 *
 * <p>
 * Every thread that waits for the lock offers to take a hold handed over
 * ({@link Handoff}) from the moment it starts waiting, in a queue in order of arrival.
 * Only the first of them tries and waits in Redis; the others wait in the JVM. A
 * releasing thread hands its hold over to the first open offer, so the next waiter gets
 * the lock even if it has not run since it started waiting.
 */
final class LocalLock {

	final LockId id;

	/**
	 * The hold of this JVM, from its acquisition until its release in Redis (a hand-over
	 * replaces it with the next hold): while it is valid, this JVM's first waiter waits
	 * for it here rather than in the lock's queue in Redis.
	 */
	final AtomicReference<RedisHold> holder = new AtomicReference<>();

	/** Callers using this entry; guarded by {@link LocalLocks}. */
	int users;

	/**
	 * Hand-overs in a row without a release in Redis, so that other JVMs get their turn.
	 */
	volatile int handoffs;

	private final Queue<Handoff> offers = new ConcurrentLinkedQueue<>();

	LocalLock(LockId id) {
		this.id = id;
	}

	/**
	 * Queue the offer of a thread that starts waiting.
	 */
	void offer(Handoff offer) {
		this.offers.add(offer);
	}

	/**
	 * Wait until the given offer is the first, so that its thread tries in Redis, or a
	 * releasing thread claimed it.
	 * @return {@code false} if the deadline passed first
	 * @throws InterruptedException if the thread is interrupted, also before it waits
	 */
	boolean awaitTurn(Handoff offer, Deadline deadline) throws InterruptedException {
		while (true) {
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			if (this.offers.peek() == offer || offer.isClaimed()) {
				return true;
			}
			if (deadline.isPast()) {
				return false;
			}
			// Woken when an offer before it leaves and it is first, or when it is
			// completed
			LockSupport.parkNanos(this, deadline.remainingNanos());
		}
	}

	/**
	 * Claim the first open offer for a hand-over.
	 * @return the offer, or {@code null} if no thread of this JVM waits
	 */
	@Nullable Handoff claimFirstOffer() {
		for (Handoff offer : this.offers) {
			if (offer.claim()) {
				return offer;
			}
		}
		return null;
	}

	/**
	 * Take an offer that will not be claimed again (withdrawn, abandoned or completed)
	 * out of the queue, and wake the thread whose offer is first now.
	 */
	void remove(Handoff offer) {
		this.offers.remove(offer);
		Handoff first = this.offers.peek();
		if (first != null) {
			first.wake();
		}
	}

}
