package dev.distlock.check;

import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.stream.Collectors;

import dev.distlock.check.CheckHistory.FailedWait;
import dev.distlock.check.CheckHistory.Fault;
import dev.distlock.check.CheckHistory.GiveBack;
import dev.distlock.check.CheckHistory.Hold;
import dev.distlock.check.CheckHistory.Reentry;
import dev.distlock.check.CheckHistory.SideChange;

/**
 * The checks of what every call promises besides exclusion: each hold ends in a release
 * or a reported loss, an interrupt never fails a release, a successful release never
 * hides a loss, a hold's loss action runs once for a loss found while it was held and
 * never for a hold released first, no transaction commits once its hold was reported
 * lost, every call returns within its bound, nothing (hold, thread) outlives the work, a
 * leadership's term ends in a revocation (its loss action) after which the leadership
 * never says it leads, and a read/write lock refuses an upgrade (the write lock taken
 * under a read hold) by throwing and grants a downgrade (the read lock taken under a
 * write hold) at once, both from a hold that said valid just before, unless Redis lost
 * its data while that hold was held (a downgrade then finds no write hold). An attempt
 * that reaches Redis after its give-back takes nothing, unless Redis lost its data
 * meanwhile (and with it the mark of the give-back). An acquisition never fails because
 * another was cancelled: one that threw with a {@link CancellationException} among its
 * causes must have been interrupted itself. A hold reported lost is never entered again
 * by its thread.
 */
final class PromiseChecks {

	private final CheckHistory history;

	private final Violations violations;

	PromiseChecks(CheckHistory history, Violations violations) {
		this.history = history;
		this.violations = violations;
	}

	void run() {
		Map<String, Long> holdsByKey = this.history.holds.values()
			.stream()
			.collect(Collectors.groupingBy(PromiseChecks::lostKey, Collectors.counting()));
		for (Hold hold : this.history.holds.values()) {
			if (this.history.killedAt.containsKey(hold.incarnation)) {
				continue;
			}
			Long lostAt = this.history.lostEvents.get(lostKey(hold));
			if (hold.releaseOutcome.isEmpty() && lostAt == null) {
				this.violations.add("never-released", hold.toString());
			}
			if (hold.releaseOutcome.endsWith(RecordedHold.INTERRUPTED)) {
				this.violations.add("release-interrupted",
						"the release failed because its thread was interrupted: " + hold);
			}
			if (hold.releaseOutcome.equals("OK") && lostAt == null && dataLostDuring(hold)) {
				this.violations.add("loss-hidden", "released OK although Redis lost its data while held: " + hold);
			}
			if (holdsByKey.get(lostKey(hold)) == 1 && !hold.isTerm()) {
				checkLossActions(hold, lostAt);
			}
			if (hold.isTerm() && !hold.releaseOutcome.isEmpty() && hold.confirmedUntil > hold.releaseStart) {
				this.violations.add("leader-after-revoke", "isLeader() said true at " + hold.confirmedUntil
						+ " after the term was revoked at " + hold.releaseStart + ": " + hold);
			}
		}
		for (Reentry reentry : this.history.reentries) {
			checkReentry(reentry);
		}
		for (FailedWait failed : this.history.failedWaits) {
			if (!failed.interrupted() && failed.causes().contains(CancellationException.class.getName())) {
				this.violations.add("failed-by-another-cancel", "threw " + failed.causes()
						+ " although its thread was not interrupted: " + failed.acquisition());
			}
		}
		for (GiveBack giveBack : this.history.giveBacks) {
			if (giveBack.marked() && giveBack.taken()
					&& !this.history.dataLossBetween(giveBack.start(), giveBack.end())) {
				this.violations.add("given-back-taken",
						"an attempt that reached Redis after its give-back took the lock: " + giveBack);
			}
		}
		for (SideChange change : this.history.sideChanges) {
			String expected = change.change().equals("upgrade") ? "refused" : "acquired";
			Hold from = this.history.holds.get(change.hold());
			if (change.valid() && !change.outcome().equals(expected) && (from == null || !dataLostDuring(from))) {
				this.violations.add(change.change() + "-" + change.outcome(), change.toString());
			}
		}
		for (String report : this.history.reports) {
			String kind = report.substring(report.indexOf(' ') + 1).split(" ", 2)[0];
			this.violations.add(switch (kind) {
				case "HUNG" -> "never-returned";
				case "HELD" -> "hold-leaked";
				default -> "thread-leaked";
			}, report);
		}
	}

	/**
	 * Check the loss action and the commits of a hold whose reports are its own (no other
	 * hold of its incarnation had its name and token, as after a data loss). A loss
	 * reported before the hold's release began was found by the watchdog, a fixed lease
	 * running out or a hand-over, never by the release, and must have run the action.
	 */
	private void checkLossActions(Hold hold, Long lostAt) {
		if (hold.lossActions > 1) {
			this.violations.add("loss-action-repeated", hold.lossActions + " runs: " + hold);
		}
		if (hold.lossActions > 0 && lostAt == null) {
			this.violations.add("loss-action-unreported", hold.toString());
		}
		if (hold.lossActions > 0 && hold.releaseOutcome.equals("OK")) {
			this.violations.add("loss-action-after-release", hold.toString());
		}
		boolean lostBeforeRelease = lostAt != null && (hold.releaseOutcome.isEmpty() || lostAt < hold.releaseStart);
		if (lostBeforeRelease && hold.lossActions == 0) {
			this.violations.add("loss-action-missed", "reported lost at " + lostAt + ": " + hold);
		}
		for (long commitStart : hold.commitStarts) {
			if (lostAt != null && commitStart > lostAt) {
				this.violations.add("committed-after-loss",
						"commit began at " + commitStart + ", reported lost at " + lostAt + ": " + hold);
			}
		}
	}

	/**
	 * Check that a hold reported lost before its thread took it again was not entered
	 * again: a hold known lost is never reentered.
	 */
	private void checkReentry(Reentry reentry) {
		Hold hold = this.history.holds.get(reentry.hold());
		if (hold == null || !reentry.entered()) {
			return;
		}
		Long lostAt = this.history.lostEvents.get(lostKey(hold));
		if (lostAt != null && lostAt < reentry.start()) {
			this.violations.add("reentered-lost",
					"entered again at " + reentry.start() + " after it was reported lost at " + lostAt + ": " + hold);
		}
	}

	private static String lostKey(Hold hold) {
		return CheckHistory.lostKey(hold.incarnation, hold.name, hold.token);
	}

	private boolean dataLostDuring(Hold hold) {
		for (Fault fault : this.history.faults) {
			if (fault.dataLoss() && fault.start() > hold.acquired && fault.end() < hold.releaseStart) {
				return true;
			}
		}
		return false;
	}

}
