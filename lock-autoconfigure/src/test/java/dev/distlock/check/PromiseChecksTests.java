package dev.distlock.check;

import dev.distlock.check.CheckHistory.Hold;
import dev.distlock.check.CheckHistory.SideChange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link PromiseChecks} on made-up upgrades and downgrades of a read/write
 * lock, and a leadership's term.
 */
@Timeout(30)
class PromiseChecksTests {

	private final CheckHistory history = new CheckHistory();

	@Test
	void upgradeThatTookTheWriteLockIsAViolation() {
		this.history.sideChanges.add(new SideChange("w0.1", "w0.1-1", "upgrade", true, "acquired"));
		assertThat(check().counts()).isEqualTo("{upgrade-acquired=1}");
	}

	@Test
	void upgradeThatWaitedIsAViolation() {
		this.history.sideChanges.add(new SideChange("w0.1", "w0.1-1", "upgrade", true, "timeout"));
		assertThat(check().counts()).isEqualTo("{upgrade-timeout=1}");
	}

	@Test
	void downgradeRefusedUnderAValidWriteHoldIsAViolation() {
		this.history.sideChanges.add(new SideChange("w0.1", "w0.1-1", "downgrade", true, "refused"));
		assertThat(check().counts()).isEqualTo("{downgrade-refused=1}");
	}

	@Test
	void refusedUpgradeAndGrantedDowngradeAreNoViolation() {
		this.history.sideChanges.add(new SideChange("w0.1", "w0.1-1", "upgrade", true, "refused"));
		this.history.sideChanges.add(new SideChange("w0.1", "w0.1-2", "downgrade", true, "acquired"));
		this.history.sideChanges.add(new SideChange("w0.1", "w0.1-3", "downgrade", false, "refused"));
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void leaderSayingItLeadsAfterItsTermWasRevokedIsAViolation() {
		Hold term = new Hold("w0.1-term-7", "w0.1", WorkerOps.LEADERSHIP, 7, WorkerOps.TERM, 1000, 1000, 0);
		term.releaseStart = 5000;
		term.releaseOutcome = "REVOKED";
		term.confirmedUntil = 6000;
		this.history.holds.put(term.id, term);
		assertThat(check().counts()).isEqualTo("{leader-after-revoke=1}");
	}

	private Violations check() {
		Violations violations = new Violations();
		new PromiseChecks(this.history, violations).run();
		return violations;
	}

}
