package dev.distlock.redis;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * The offer of a thread of this JVM that waits for a lock ({@link LocalLock}): a local
 * holder that releases it may claim the offer and hand its hold over. A claimed offer is
 * always completed, with the new hold, or with nothing when the hand-over failed, which
 * opens the offer again in its place; the waiter is unparked then.
 *
 * <p>
 * A waiter that stops waiting withdraws its offer. A waiter that stops by an exception
 * abandons it instead: an open offer is withdrawn, a claimed one is left to the releasing
 * thread ({@link #complete} then fails and the releaser keeps what it would have handed
 * over), and a hold already handed over is returned for the waiter to give back. So a
 * handed-over hold always has an owner.
 */
final class Handoff {

	private static final int OPEN = 0;

	private static final int CLAIMED = 1;

	private static final int COMPLETED = 2;

	private static final int WITHDRAWN = 3;

	private static final int ABANDONED = 4;

	/**
	 * The waiter's acquisition: the token, terms and options it is handed a lock with.
	 */
	final Acquisition acquisition;

	private final Thread waiter = Thread.currentThread();

	private final AtomicInteger state = new AtomicInteger(OPEN);

	private volatile @Nullable RedisHold hold;

	/**
	 * Create the offer of the current thread.
	 */
	Handoff(Acquisition acquisition) {
		this.acquisition = acquisition;
	}

	/**
	 * Claim the offer for a hand-over; to be completed by {@link #complete}.
	 */
	boolean claim() {
		return this.state.compareAndSet(OPEN, CLAIMED);
	}

	/**
	 * Complete a claimed offer with the handed-over hold, or open it again if the
	 * hand-over failed ({@code null}), and wake the waiter.
	 * @return whether the waiter takes the hold; {@code false} when it abandoned the
	 * offer meanwhile, so that the hold stays with the caller
	 */
	boolean complete(@Nullable RedisHold handedOver) {
		this.hold = handedOver;
		boolean taken = this.state.compareAndSet(CLAIMED, (handedOver != null) ? COMPLETED : OPEN);
		wake();
		return taken;
	}

	/**
	 * Unpark the waiting thread.
	 */
	void wake() {
		LockSupport.unpark(this.waiter);
	}

	/**
	 * Withdraw the offer, unless a releasing thread claimed it.
	 * @return {@code false} if it is claimed or completed, otherwise {@code true} (it is
	 * withdrawn, or was abandoned)
	 */
	boolean withdraw() {
		while (true) {
			int current = this.state.get();
			if (current == CLAIMED || current == COMPLETED) {
				return false;
			}
			if (current != OPEN || this.state.compareAndSet(OPEN, WITHDRAWN)) {
				return true;
			}
		}
	}

	/**
	 * Abandon the offer because the waiter stops by an exception.
	 * @return a hold handed over already, which the caller must give back, or
	 * {@code null}
	 */
	@Nullable RedisHold abandon() {
		while (true) {
			int current = this.state.get();
			if (current == COMPLETED) {
				return this.hold;
			}
			if (current != OPEN && current != CLAIMED) {
				return null;
			}
			if (this.state.compareAndSet(current, (current == OPEN) ? WITHDRAWN : ABANDONED)) {
				return null;
			}
		}
	}

	/**
	 * Return whether a releasing thread claimed the offer, whether or not it completed it
	 * yet: the waiter then takes what {@link #awaitCompletion()} returns, if anything.
	 */
	boolean isClaimed() {
		int current = this.state.get();
		return current == CLAIMED || current == COMPLETED;
	}

	/**
	 * Wait, parked, until a claimed offer is completed, and return the handed-over hold.
	 * The releasing thread completes it within its command timeout, so this wait does not
	 * end on interrupt; the interrupt flag is set again afterwards.
	 * @return the hold, or {@code null} if the hand-over failed (or another claimed the
	 * offer since, which completes it in turn)
	 */
	@Nullable RedisHold awaitCompletion() {
		boolean interrupted = false;
		while (this.state.get() == CLAIMED) {
			LockSupport.park(this);
			interrupted |= Thread.interrupted();
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
		return (this.state.get() == COMPLETED) ? this.hold : null;
	}

}
