package dev.distlock.redis.renewal;

import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;

/**
 * Keeps the leases of a registry's holds: renews the holds in watchdog mode every third
 * of the lease time, in batches, and finds a fixed lease lost the moment it runs out
 * while held. Either tells the {@link LossHandler} of the holds it finds lost, and of
 * failed renewals that leave time on a lease.
 *
 * @param <H> the type of the holds
 */
public final class LeaseRenewal<H extends RenewedHold> implements AutoCloseable {

	private final LeaseWatchdog<H> watchdog;

	private final LeaseExpiries<H> expiries;

	/**
	 * Create the lease renewal of a registry and start its watchdog.
	 * @param renewer renews holds in Redis
	 * @param leaseTime the lease time in watchdog mode, a third of which is the renewal
	 * period
	 * @param lossHandler told of the holds found lost and of failed renewals
	 * @param threads makes the daemon threads of the given name that renew and watch
	 * leases
	 */
	public LeaseRenewal(HoldRenewer<H> renewer, Duration leaseTime, LossHandler<H> lossHandler,
			Function<String, ThreadFactory> threads) {
		this.watchdog = new LeaseWatchdog<>(renewer, leaseTime, lossHandler, threads.apply("distlock-watchdog"),
				threads.apply("distlock-take-up"));
		this.expiries = new LeaseExpiries<>(lossHandler, threads.apply("distlock-lease-expiry"));
	}

	/**
	 * Renew a new hold if it is in watchdog mode, otherwise watch its fixed lease run
	 * out.
	 * @param hold the hold
	 */
	public void watch(H hold) {
		if (hold.isRenewed()) {
			this.watchdog.add(hold);
		}
		else {
			this.expiries.add(hold);
		}
	}

	/**
	 * Stop renewing and watching a released hold.
	 * @param hold the hold
	 */
	public void unwatch(H hold) {
		this.watchdog.remove(hold);
		this.expiries.remove(hold);
	}

	/**
	 * Stop renewing a hold found lost.
	 * @param hold the hold
	 */
	public void stopRenewing(H hold) {
		this.watchdog.remove(hold);
	}

	/**
	 * Stop watching the fixed lease of a hold while it is extended, so that it is not
	 * found run out while the extension may still reach Redis in time.
	 * @param hold the hold
	 * @return whether the hold may be extended: a watchdog hold, or a fixed lease not
	 * found run out
	 * @see #resumeExpiry
	 */
	public boolean pauseExpiry(H hold) {
		return hold.isRenewed() || this.expiries.remove(hold);
	}

	/**
	 * Watch the fixed lease of a hold again after an extension, unless it was released or
	 * lost meanwhile.
	 * @param hold the hold
	 */
	public void resumeExpiry(H hold) {
		if (!hold.isRenewed()) {
			this.expiries.watchAgain(hold);
		}
	}

	/**
	 * Renew a hold at the given time, in the background, with its own terms, whether it
	 * is in watchdog mode or has a fixed lease, unless it is neither held nor being
	 * released then (Redis answered its release): a renewal that finds a held hold
	 * expired or taken reports it lost, as the watchdog's do.
	 * @param hold the hold, watched already
	 * @param atNanos when, in {@link System#nanoTime()}; at once if that has passed
	 */
	public void renewAt(H hold, long atNanos) {
		this.watchdog.renewAt(hold, atNanos);
	}

	/**
	 * Renew every hold in watchdog mode now, rather than at the next period.
	 */
	public void renewNow() {
		this.watchdog.renew();
	}

	/**
	 * Return how often leases are renewed: a third of the lease time.
	 * @return the renewal period
	 */
	public Duration period() {
		return this.watchdog.period();
	}

	/**
	 * Return how much longer ago than one period the last renewal round ended.
	 * @return how late renewal is, zero when on time
	 */
	public Duration delay() {
		return this.watchdog.delay();
	}

	/**
	 * Stop renewing and watching leases.
	 */
	@Override
	public void close() {
		this.watchdog.close();
		this.expiries.close();
	}

}
