package dev.distlock.redis.renewal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Finds holds with a fixed lease lost the moment their lease runs out while they are
 * held, rather than at their release: one scheduled check per hold, cancelled when it is
 * released, and scheduled again when it finds the lease renewed since (a grant taken up
 * after its holder started on the grant's message). Its thread starts with the first
 * fixed lease.
 *
 * @param <H> the type of the holds
 */
final class LeaseExpiries<H extends RenewedHold> implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseExpiries.class);

	private final LossHandler<H> lossHandler;

	private final ScheduledThreadPoolExecutor scheduler;

	private final Map<H, ScheduledFuture<?>> checks = new ConcurrentHashMap<>();

	LeaseExpiries(LossHandler<H> lossHandler, ThreadFactory threads) {
		this.lossHandler = lossHandler;
		this.scheduler = new ScheduledThreadPoolExecutor(1, threads);
		this.scheduler.setRemoveOnCancelPolicy(true);
	}

	/**
	 * Report the hold lost when its fixed lease runs out, unless it is removed before.
	 */
	void add(H hold) {
		long delay = hold.validUntilNanos() - System.nanoTime();
		try {
			ScheduledFuture<?> replaced = this.checks.put(hold,
					this.scheduler.schedule(() -> expire(hold), delay, TimeUnit.NANOSECONDS));
			if (replaced != null) {
				// Watched again by a check that found it renewed while it was extended
				replaced.cancel(false);
			}
		}
		catch (RejectedExecutionException ex) {
			// Closed meanwhile: nothing is watched any more, the key expires with its
			// lease
		}
	}

	/**
	 * Watch a hold again until its new end, unless it was released or lost meanwhile.
	 */
	void watchAgain(H hold) {
		if (hold.isHeld()) {
			add(hold);
			if (!hold.isHeld()) {
				// Released meanwhile, maybe before its release stopped the watching
				remove(hold);
			}
		}
	}

	/**
	 * Stop watching a hold: a released one, or one whose lease is being extended.
	 * @return whether its lease has not run out: its check was cancelled before it
	 * started, or the hold is still valid, so that a check that started meanwhile finds
	 * it renewed and watches it again; {@code false} when its lease was found run out
	 */
	boolean remove(H hold) {
		ScheduledFuture<?> check = this.checks.remove(hold);
		return (check != null && check.cancel(false)) || hold.validUntilNanos() - System.nanoTime() > 0;
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

	private void expire(H hold) {
		this.checks.remove(hold);
		if (hold.validUntilNanos() - System.nanoTime() > 0) {
			// Renewed since it was watched
			watchAgain(hold);
			return;
		}
		try {
			this.lossHandler.lost(hold,
					"its fixed lease of " + hold.terms().leaseMillis() + " ms ran out while it was held");
		}
		catch (RuntimeException | Error ex) {
			logger.error("Reporting the expiry of lock '" + hold.lockName() + "' failed", ex);
		}
	}

}
