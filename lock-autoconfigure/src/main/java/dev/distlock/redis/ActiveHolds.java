package dev.distlock.redis;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.HeldLock;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.LockRenewalFailedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The holds a registry has now: listed for operations, renewed by a {@link LeaseWatchdog}
 * while in watchdog mode or watched by {@link LeaseExpiries} with a fixed lease, and
 * reported once when lost (logged, told to the hold's observation and its event
 * published, then their loss actions run). Failed renewals that leave time on a lease are
 * told to the hold's observation and published too. Publishing only queues an event for
 * the event thread, so no listener runs on the watchdog or under a hold's reporting lock.
 */
final class ActiveHolds implements LossHandler, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockRegistry.class);

	private final Set<RedisHold> holds = ConcurrentHashMap.newKeySet();

	private final LeaseWatchdog watchdog;

	private final LeaseExpiries expiries;

	private final LockEventPublisher events;

	ActiveHolds(RedisLockCommands commands, Duration leaseTime, LockEventPublisher events) {
		this.watchdog = new LeaseWatchdog(commands, leaseTime, this);
		this.expiries = new LeaseExpiries(this);
		this.events = events;
	}

	/**
	 * Start tracking a new hold, renewing it if it is in watchdog mode, otherwise
	 * watching its fixed lease run out.
	 */
	void add(RedisHold hold) {
		this.holds.add(hold);
		if (hold.renewed) {
			this.watchdog.add(hold);
		}
		else {
			this.expiries.add(hold);
		}
	}

	/**
	 * Stop tracking, renewing and watching a released hold.
	 */
	void remove(RedisHold hold) {
		this.watchdog.remove(hold);
		this.expiries.remove(hold);
		this.holds.remove(hold);
	}

	/**
	 * Stop watching the fixed lease of a hold while it is extended, so that it is not
	 * found run out while the extension may still reach Redis in time.
	 * @return whether the hold may be extended: a watchdog hold, or a fixed lease not
	 * found run out
	 * @see #resumeExpiry(RedisHold)
	 */
	boolean pauseExpiry(RedisHold hold) {
		return hold.renewed || this.expiries.remove(hold);
	}

	/**
	 * Watch the fixed lease of a hold again after an extension, unless it was released or
	 * lost meanwhile.
	 */
	void resumeExpiry(RedisHold hold) {
		if (!hold.renewed && hold.state() == RedisHold.State.HELD) {
			this.expiries.add(hold);
			if (hold.state() != RedisHold.State.HELD) {
				// Released meanwhile, maybe before its release stopped the watching
				this.expiries.remove(hold);
			}
		}
	}

	@Override
	public void lost(RedisHold hold, String reason) {
		boolean found = false;
		hold.reporting.lock();
		try {
			if (hold.markLost()) {
				found = true;
				this.watchdog.remove(hold);
				report(hold, reason);
			}
		}
		finally {
			hold.reporting.unlock();
		}
		if (found) {
			hold.lossActions.run(new LockLostException(hold.id.name.value(), hold.fencingToken, "Lock '" + hold.id.name
					+ "' was lost while held (fencing token " + hold.fencingToken + "): " + reason));
		}
	}

	@Override
	public void renewalFailed(RedisHold hold, String reason) {
		if (hold.state() != RedisHold.State.HELD) {
			return;
		}
		Duration left = Duration.ofNanos(Math.max(0, hold.validUntilNanos() - System.nanoTime()));
		LockRenewalFailedEvent event = new LockRenewalFailedEvent(hold.id.name.value(), hold.id.key, hold.fencingToken,
				reason, left);
		hold.reportRenewalFailure(event, this.events::publish);
	}

	/**
	 * Report a hold lost: log it, tell its observation and publish its event.
	 */
	void report(RedisHold hold, String reason) {
		logger.warn("Lock '" + hold.id.name + "' (fencing token " + hold.fencingToken + ") was lost: " + reason);
		LockLostEvent event = new LockLostEvent(hold.id.name.value(), hold.id.key, hold.fencingToken, reason);
		hold.observeLoss(event);
		this.events.publish(event);
	}

	/**
	 * Return the holds still held, longest held first.
	 */
	List<HeldLock> list() {
		long now = System.nanoTime();
		return this.holds.stream()
			.filter((hold) -> hold.state() == RedisHold.State.HELD)
			.sorted(Comparator.comparingLong((RedisHold hold) -> hold.acquiredNanos))
			.map((hold) -> {
				String owner = hold.owner;
				return new HeldLock(hold.id.name.value(), hold.id.name.keyValue(), hold.kind.heldKey(hold.id),
						hold.fencingToken, Duration.ofNanos(now - hold.acquiredNanos),
						Duration.ofNanos(Math.max(0, hold.validUntilNanos() - now)), (owner != null) ? owner : "lease",
						hold.kind.label);
			})
			.toList();
	}

	/**
	 * Return the holds still held, in no order.
	 */
	List<RedisHold> held() {
		return this.holds.stream().filter((hold) -> hold.state() == RedisHold.State.HELD).toList();
	}

	LeaseWatchdog watchdog() {
		return this.watchdog;
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
