package dev.distlock.redis.renewal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import dev.distlock.DistributedLockException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Extends the leases of held locks every third of the lease time. All holds due are
 * renewed together: one script call per {@value #BATCH_SIZE} locks of one Cluster slot,
 * one kind and the same {@link LeaseTerms}, all sent before any reply is awaited, so the
 * round trips per period grow with the Redis nodes and not with the held locks. A renewal
 * that finds the lock expired or taken marks it lost; a renewal that fails marks it lost
 * once its lease would run out before the next attempt. A hold whose lease ran out before
 * its renewal was sent (the JVM paused, or this thread held up) is marked lost, not
 * renewed: a lease that ran out is over, though Redis may keep the key longer than this
 * JVM counts when a command of the hold reached it late. Nothing that goes wrong in a
 * round, not even an {@link Error} thrown by a loss action, ends the schedule: it is
 * logged, and the next round runs.
 *
 * @param <H> the type of the holds
 */
final class LeaseWatchdog<H extends RenewedHold> implements AutoCloseable {

	/** Locks renewed by one script call. */
	static final int BATCH_SIZE = 500;

	/** Why a hold is lost whose validity ran out before its renewal was sent. */
	private static final String RAN_OUT = "its lease ran out before it was renewed";

	private static final Log logger = LogFactory.getLog(LeaseWatchdog.class);

	private final HoldRenewer<H> renewer;

	private final long periodNanos;

	private final LossHandler<H> lossHandler;

	private final Set<H> holds = ConcurrentHashMap.newKeySet();

	private final ScheduledExecutorService scheduler;

	/**
	 * Sends the renewals due at a time of their own, which the JDK's delayed executor
	 * hands over when they are due: never behind a round that waits for Redis, nor behind
	 * one another on a driver whose calls block the calling thread. Its threads start as
	 * needed and end after a minute unused.
	 */
	private final ExecutorService timedRenewals;

	private volatile long lastRoundNanos = System.nanoTime();

	LeaseWatchdog(HoldRenewer<H> renewer, Duration leaseTime, LossHandler<H> lossHandler, ThreadFactory threads,
			ThreadFactory timedThreads) {
		this.renewer = renewer;
		this.periodNanos = leaseTime.toNanos() / 3;
		this.lossHandler = lossHandler;
		this.scheduler = Executors.newSingleThreadScheduledExecutor(threads);
		this.timedRenewals = Executors.newCachedThreadPool(timedThreads);
		this.scheduler.scheduleAtFixedRate(this::renewSafely, this.periodNanos, this.periodNanos, TimeUnit.NANOSECONDS);
	}

	void add(H hold) {
		this.holds.add(hold);
	}

	void remove(H hold) {
		this.holds.remove(hold);
	}

	Duration period() {
		return Duration.ofNanos(this.periodNanos);
	}

	Duration delay() {
		long late = System.nanoTime() - this.lastRoundNanos - this.periodNanos;
		return (late > 0) ? Duration.ofNanos(late) : Duration.ZERO;
	}

	/**
	 * Renew every held lock now.
	 */
	void renew() {
		long sentNanos = System.nanoTime();
		List<H> ranOut = new ArrayList<>();
		Map<Group, List<H>> groups = new LinkedHashMap<>();
		this.holds.stream().filter(RenewedHold::isHeld).forEach((hold) -> {
			if (ranOutBefore(hold, sentNanos)) {
				ranOut.add(hold);
			}
			else {
				Group group = new Group(this.renewer.batchOf(hold), hold.terms());
				groups.computeIfAbsent(group, (key) -> new ArrayList<>()).add(hold);
			}
		});
		List<RenewalBatch<H>> batches = new ArrayList<>();
		groups.forEach((group, holds) -> {
			for (int from = 0; from < holds.size(); from += BATCH_SIZE) {
				batches.add(new RenewalBatch<>(holds.subList(from, Math.min(holds.size(), from + BATCH_SIZE)),
						group.terms()));
			}
		});
		List<CompletableFuture<List<Long>>> replies = send(batches);
		ranOut.forEach((hold) -> this.lossHandler.lost(hold, RAN_OUT));
		for (int i = 0; i < batches.size(); i++) {
			settleSafely(batches.get(i), replies.get(i), sentNanos);
		}
		this.lastRoundNanos = System.nanoTime();
	}

	/**
	 * Renew one hold at the given time, unless it is neither held nor being released
	 * then: a release on its way may reach Redis after the validity the hold has without
	 * the renewal, and find its key expired. Once closed, nothing is renewed any more.
	 * @see #renewAtOnce
	 */
	void renewAt(H hold, long atNanos) {
		CompletableFuture.delayedExecutor(atNanos - System.nanoTime(), TimeUnit.NANOSECONDS, this.timedRenewals)
			.execute(() -> {
				try {
					if (hold.isHeld() || hold.isReleasing()) {
						renewAtOnce(hold);
					}
				}
				catch (RuntimeException | Error ex) {
					logger.error("Renewing lock '" + hold.lockName() + "' failed", ex);
				}
			});
	}

	/**
	 * Renew one hold now, without waiting for Redis, whether it is in watchdog mode or
	 * not. A renewal is recorded where its reply arrives, since a round under way on the
	 * watchdog's thread may wait for Redis for a command timeout; a failure is settled on
	 * that thread, as a round's are.
	 */
	private void renewAtOnce(H hold) {
		long sentNanos = System.nanoTime();
		if (ranOutBefore(hold, sentNanos)) {
			this.lossHandler.lost(hold, RAN_OUT);
			return;
		}
		RenewalBatch<H> batch = new RenewalBatch<>(List.of(hold), hold.terms());
		CompletableFuture<List<Long>> reply = send(List.of(batch)).get(0);
		reply.whenComplete((renewed, ex) -> {
			if (ex == null && renewed.get(0) == 1L) {
				recordRenewal(hold, sentNanos, batch.terms());
				return;
			}
			try {
				this.scheduler.execute(() -> settleSafely(batch, reply, sentNanos));
			}
			catch (RejectedExecutionException closed) {
				// Nothing is renewed any more
			}
		});
	}

	/**
	 * Return whether a hold's validity ran out before its renewal is sent: it is then
	 * marked lost, not renewed. Once over, a lease stays over, though Redis would renew a
	 * key it kept longer than this JVM counts, and the hold would turn valid again.
	 */
	private static boolean ranOutBefore(RenewedHold hold, long sentNanos) {
		return hold.validUntilNanos() - sentNanos <= 0;
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
		this.timedRenewals.shutdownNow();
	}

	/**
	 * Send the renewals of a round. A batch is renewed with the terms its group was
	 * formed by: a hold extended meanwhile is renewed with its former terms this round,
	 * which never shortens its key.
	 */
	private List<CompletableFuture<List<Long>>> send(List<RenewalBatch<H>> renewals) {
		try {
			return this.renewer.renew(renewals);
		}
		catch (RuntimeException ex) {
			return Collections.nCopies(renewals.size(), CompletableFuture.failedFuture(ex));
		}
	}

	private void settleSafely(RenewalBatch<H> renewal, CompletableFuture<List<Long>> reply, long sentNanos) {
		try {
			settle(renewal, reply, sentNanos);
		}
		catch (RuntimeException | Error ex) {
			logger.error("Settling the renewal of " + renewal.holds().size() + " lock leases failed", ex);
		}
	}

	private void settle(RenewalBatch<H> renewal, CompletableFuture<List<Long>> reply, long sentNanos) {
		List<H> batch = renewal.holds();
		List<Long> renewed;
		try {
			renewed = this.renewer.await(reply, "renew " + batch.size() + " lock leases");
		}
		catch (DistributedLockException ex) {
			logger.warn("Renewing " + batch.size() + " lock leases failed; retrying", ex);
			long nextAttempt = System.nanoTime() + this.periodNanos;
			for (H hold : batch) {
				hold.renewalFailure(ex.getMessage());
				if (hold.validUntilNanos() - nextAttempt < 0) {
					this.lossHandler.lost(hold, "its renewal failed (" + ex.getMessage() + ") and its lease runs out");
				}
				else {
					this.lossHandler.renewalFailed(hold, ex.getMessage());
				}
			}
			return;
		}
		for (int i = 0; i < batch.size(); i++) {
			H hold = batch.get(i);
			if (renewed.get(i) == 1L) {
				recordRenewal(hold, sentNanos, renewal.terms());
			}
			else {
				String failure = hold.renewalFailure();
				this.lossHandler.lost(hold, "its renewal found it expired or held by another owner"
						+ ((failure != null) ? " after earlier renewals failed (" + failure + ")" : ""));
			}
		}
	}

	private static <H extends RenewedHold> void recordRenewal(H hold, long sentNanos, LeaseTerms terms) {
		hold.extend(sentNanos, terms);
		hold.renewalFailure(null);
	}

	/**
	 * Run a scheduled round. Whatever it throws is logged and kept from the scheduler,
	 * which would otherwise never run the task again.
	 */
	private void renewSafely() {
		try {
			renew();
		}
		catch (RuntimeException | Error ex) {
			logger.error("Lock lease renewal round failed; the next round runs in " + period(), ex);
		}
	}

	/**
	 * What the holds of one {@link RenewalBatch} share.
	 *
	 * @param batch the batch, as {@link HoldRenewer#batchOf} returns it
	 * @param terms their lease and lock delay
	 */
	private record Group(Object batch, LeaseTerms terms) {

	}

}
