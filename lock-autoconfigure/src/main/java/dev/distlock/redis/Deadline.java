package dev.distlock.redis;

import java.time.Duration;

/**
 * The moment a wait for a lock ends, on the monotonic clock; waits too long to count in
 * nanoseconds never end.
 */
final class Deadline {

	private static final long FOREVER = Long.MAX_VALUE;

	private final long endNanos;

	private final boolean forever;

	private Deadline(long endNanos, boolean forever) {
		this.endNanos = endNanos;
		this.forever = forever;
	}

	static Deadline after(Duration wait) {
		long nanos = saturatedNanos(wait);
		return (nanos >= FOREVER / 2) ? new Deadline(0, true) : new Deadline(System.nanoTime() + nanos, false);
	}

	long remainingNanos() {
		return this.forever ? FOREVER : Math.max(0, this.endNanos - System.nanoTime());
	}

	boolean isPast() {
		return !this.forever && this.endNanos - System.nanoTime() <= 0;
	}

	private static long saturatedNanos(Duration wait) {
		try {
			return wait.toNanos();
		}
		catch (ArithmeticException ex) {
			return FOREVER;
		}
	}

}
