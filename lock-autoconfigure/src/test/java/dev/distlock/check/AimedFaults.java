package dev.distlock.check;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The faults aimed at moments a run meets only now and then, due in turn every few
 * seconds, so that each comes up several times in a short run however many kinds the
 * random draw picks from: a hold kept past its lease within the lock delay, a holder
 * thawed while a rival holds its lock, permits whose lease runs out while their releases
 * are held back, a share renewed late within its lease, a local hand-over of a lock
 * another process took meanwhile, an attempt that reaches Redis after its give-back, a
 * renewal whose reply comes late. Drawn at random only, each came up once or twice a
 * minute, and a run of a minute could miss the one bug it is aimed at.
 */
final class AimedFaults {

	/** How long after the run began the first is due, and after each the next. */
	private static final long INTERVAL_MILLIS = 3_500;

	private final List<String> kinds;

	private int next;

	private long dueNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS);

	/**
	 * Create the rotation of the given kinds.
	 * @param kinds the kinds of faults, in the order they are due
	 */
	AimedFaults(List<String> kinds) {
		this.kinds = kinds;
	}

	/**
	 * Return the kind whose turn came, if one did; the next is then due an interval
	 * later, whether the fault finds a target or not.
	 * @return the kind, or {@code null} when none is due
	 */
	@Nullable String due() {
		long now = System.nanoTime();
		if (this.kinds.isEmpty() || now - this.dueNanos < 0) {
			return null;
		}
		this.dueNanos = now + TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS);
		String kind = this.kinds.get(this.next);
		this.next = (this.next + 1) % this.kinds.size();
		return kind;
	}

}
