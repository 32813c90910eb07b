package dev.distlock.check;

import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Looks at the validity of every hold of a worker that is not released yet, every 10 to
 * 30 ms, on a thread of its own, as if its holder asked all along: a hold that its engine
 * believes valid while another process holds the lock (a renewal or hand-over that Redis
 * should have refused) shows in the history even when its holder's own looks, around its
 * operations, all came before or after. Each look that finds a hold valid is a
 * {@code VALID} line, like its holder's; looks that find it invalid are not recorded, so
 * that they do not count as the holder's own.
 */
final class ValiditySampler implements AutoCloseable {

	private final Set<RecordedHold> holds = ConcurrentHashMap.newKeySet();

	private final Random random;

	private final Thread thread;

	private volatile boolean closed;

	ValiditySampler(long seed) {
		this.random = new Random(seed);
		this.thread = new Thread(this::run, "check-validity-sampler");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/**
	 * Look at a hold's validity from now on, until it is released.
	 * @param hold the hold
	 */
	void add(RecordedHold hold) {
		this.holds.add(hold);
	}

	/**
	 * Stop looking, and wait for the sampling thread to end.
	 * @throws InterruptedException if interrupted while waiting
	 */
	@Override
	public void close() throws InterruptedException {
		this.closed = true;
		this.thread.join(TimeUnit.SECONDS.toMillis(5));
	}

	private void run() {
		while (!this.closed) {
			for (RecordedHold hold : this.holds) {
				if (hold.isReleased()) {
					this.holds.remove(hold);
				}
				else {
					hold.sampleValid();
				}
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10 + this.random.nextInt(21)));
		}
	}

}
