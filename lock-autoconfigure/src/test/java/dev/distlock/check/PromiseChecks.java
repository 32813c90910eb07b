package dev.distlock.check;

import dev.distlock.check.CheckHistory.Fault;
import dev.distlock.check.CheckHistory.Hold;

/**
 * The checks of what every call promises besides exclusion: each hold ends in a release
 * or a reported loss, a successful release never hides a loss, every call returns within
 * its bound, and nothing (hold, thread) outlives the work.
 */
final class PromiseChecks {

	private final CheckHistory history;

	private final Violations violations;

	PromiseChecks(CheckHistory history, Violations violations) {
		this.history = history;
		this.violations = violations;
	}

	void run() {
		for (Hold hold : this.history.holds.values()) {
			if (this.history.killedAt.containsKey(hold.incarnation)) {
				continue;
			}
			boolean lostEvent = this.history.lostEvents
				.contains(CheckHistory.lostKey(hold.incarnation, hold.name, hold.token));
			if (hold.releaseOutcome.isEmpty() && !lostEvent) {
				this.violations.add("never-released", hold.toString());
			}
			if (hold.releaseOutcome.equals("OK") && !lostEvent && dataLostDuring(hold)) {
				this.violations.add("loss-hidden", "released OK although Redis lost its data while held: " + hold);
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

	private boolean dataLostDuring(Hold hold) {
		for (Fault fault : this.history.faults) {
			if (fault.dataLoss() && fault.start() > hold.acquired && fault.end() < hold.releaseStart) {
				return true;
			}
		}
		return false;
	}

}
