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
import dev.distlock.redis.renewal.LeaseRenewal;
import dev.distlock.redis.renewal.LossHandler;
import dev.distlock.thread.DaemonThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The holds a registry has now: listed for operations, their leases kept by a
 * {@link LeaseRenewal} (renewed in watchdog mode, watched with a fixed lease), and
 * reported once when lost (logged, told to the hold's observation and its event
 * published, then their loss actions run). Failed renewals that leave time on a lease are
 * told to the hold's observation and published too. Publishing only queues an event for
 * the event thread, so no listener runs on the watchdog or under a hold's reporting lock.
 */
final class ActiveHolds implements LossHandler<RedisHold>, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockRegistry.class);

	private final Set<RedisHold> holds = ConcurrentHashMap.newKeySet();

	private final LeaseRenewal<RedisHold> renewal;

	private final LockEventPublisher events;

	ActiveHolds(RedisLockCommands commands, Duration leaseTime, LockEventPublisher events) {
		this.renewal = new LeaseRenewal<>(new HoldRenewals(commands), leaseTime, this, DaemonThreads::named);
		this.events = events;
	}

	/**
	 * Start tracking a new hold, renewing it if it is in watchdog mode, otherwise
	 * watching its fixed lease run out. A hold started on a grant's message is renewed at
	 * its take-up time unless Redis answered its release before: that takes its grant up,
	 * extending its key from the claim time to its lease.
	 */
	void add(RedisHold hold) {
		this.holds.add(hold);
		this.renewal.watch(hold);
		if (hold.startedOnGrant) {
			this.renewal.renewAt(hold, hold.takeUpNanos);
		}
	}

	/**
	 * Stop tracking, renewing and watching a released hold.
	 */
	void remove(RedisHold hold) {
		this.renewal.unwatch(hold);
		this.holds.remove(hold);
	}

	@Override
	public void lost(RedisHold hold, String reason) {
		boolean found = false;
		hold.reporting.lock();
		try {
			if (hold.markLost()) {
				found = true;
				this.renewal.stopRenewing(hold);
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
		return held().stream().sorted(Comparator.comparingLong((RedisHold hold) -> hold.acquiredNanos)).map((hold) -> {
			String owner = hold.owner;
			return new HeldLock(hold.id.name.value(), hold.id.name.keyValue(), LockKeys.heldKey(hold.id, hold.kind),
					hold.fencingToken, Duration.ofNanos(now - hold.acquiredNanos),
					Duration.ofNanos(Math.max(0, hold.validUntilNanos() - now)), (owner != null) ? owner : "lease",
					hold.kind);
		}).toList();
	}

	/**
	 * Return the holds still held, in no order.
	 */
	List<RedisHold> held() {
		return this.holds.stream().filter((hold) -> hold.state() == RedisHold.State.HELD).toList();
	}

	/**
	 * Return what keeps the leases of the holds: it is paused for an extension, and tells
	 * how renewal runs.
	 */
	LeaseRenewal<RedisHold> renewal() {
		return this.renewal;
	}

	/**
	 * Stop renewing and watching leases.
	 */
	@Override
	public void close() {
		this.renewal.close();
	}

}
