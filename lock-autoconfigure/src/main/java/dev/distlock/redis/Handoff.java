package dev.distlock.redis;

import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LeaseOptions;
import org.jspecify.annotations.Nullable;

/**
 * The offer of the thread of this JVM that waits in Redis for a lock: a local holder that
 * releases it may claim the offer and hand its hold over in one round trip. The waiter
 * withdraws the offer when it stops waiting; a claimed offer is always completed, with
 * the new hold or with nothing when the hand-over failed.
 */
final class Handoff {

	private static final int OPEN = 0;

	private static final int CLAIMED = 1;

	private static final int COMPLETED = 2;

	private static final int WITHDRAWN = 3;

	final LeaseOptions options;

	final long leaseMillis;

	private final AtomicInteger state = new AtomicInteger(OPEN);

	private volatile @Nullable RedisHold hold;

	Handoff(LeaseOptions options, long leaseMillis) {
		this.options = options;
		this.leaseMillis = leaseMillis;
	}

	/**
	 * Claim the offer for a hand-over; to be completed by {@link #complete}.
	 */
	boolean claim() {
		return this.state.compareAndSet(OPEN, CLAIMED);
	}

	/**
	 * Complete a claimed offer with the handed-over hold, or {@code null} if it failed.
	 */
	void complete(@Nullable RedisHold handedOver) {
		this.hold = handedOver;
		this.state.set(COMPLETED);
	}

	/**
	 * Withdraw the offer.
	 * @return whether it was still open (not claimed)
	 */
	boolean withdraw() {
		return this.state.compareAndSet(OPEN, WITHDRAWN);
	}

	boolean isClaimed() {
		return this.state.get() == CLAIMED;
	}

	boolean isCompleted() {
		return this.state.get() == COMPLETED;
	}

	@Nullable RedisHold hold() {
		return this.hold;
	}

}
