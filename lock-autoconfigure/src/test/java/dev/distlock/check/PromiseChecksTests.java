package dev.distlock.check;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CancellationException;

import dev.distlock.DistributedLockException;
import dev.distlock.check.CheckHistory.Fault;
import dev.distlock.check.CheckHistory.Hold;
import dev.distlock.check.CheckHistory.SideChange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link PromiseChecks} on made-up upgrades and downgrades of a read/write lock
 * and a leadership's term, on acquisitions that failed, on reentries of a lost hold and
 * on attempts stalled past their give-back, recorded as workers record them.
 */
@Timeout(30)
class PromiseChecksTests {

	private final CheckHistory history = new CheckHistory();

	@TempDir
	Path directory;

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
	void downgradeRefusedAfterRedisLostItsDataUnderTheWriteHoldIsNoViolation() {
		Hold write = new Hold("w0.1-1", "w0.1", "rw:0", 7, "write", 1000, 1000, 0);
		write.releaseStart = 5000;
		write.releaseOutcome = "LOST";
		this.history.holds.put(write.id, write);
		this.history.faults.add(new Fault("release-flush", 2500, 2600, true, "w1.1:c:r0"));
		this.history.sideChanges.add(new SideChange("w0.1", "w0.1-1", "downgrade", true, "refused"));
		assertThat(check().counts()).doesNotContain("downgrade-refused");
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

	@Test
	void reentryOfAHoldReportedLostIsAViolation() {
		recordReentryAfterALoss("entered");
		assertThat(check().counts()).isEqualTo("{reentered-lost=1}");
	}

	@Test
	void reentryOfAHoldReportedLostThatThrewIsNoViolation() {
		recordReentryAfterALoss("LockLostException");
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void acquisitionFailedByACancellationWithoutAnInterruptIsAViolation() {
		recordAcquisitionFailedByACancellation(false);
		assertThat(check().counts()).isEqualTo("{failed-by-another-cancel=1}");
	}

	@Test
	void interruptedAcquisitionFailedByACancellationIsNoViolation() {
		recordAcquisitionFailedByACancellation(true);
		assertThat(this.history.failedWaits).hasSize(1);
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void attemptThatTookTheLockAfterItsGiveBackIsAViolation() {
		recordGiveBack(true, true);
		assertThat(check().counts()).isEqualTo("{given-back-taken=1}");
	}

	@Test
	void attemptThatTookTheLockWithoutAGiveBackSeenInRedisIsNoViolation() {
		recordGiveBack(false, true);
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void attemptThatTookTheLockAfterItsGiveBackWasFlushedIsNoViolation() {
		recordGiveBack(true, true);
		this.history.faults.add(new Fault("redis-flush", 2500, 2600, true, "redis"));
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void attemptThatTookNothingAfterItsGiveBackIsNoViolation() {
		recordGiveBack(true, false);
		assertThat(this.history.giveBacks).hasSize(1);
		assertThat(check().isEmpty()).isTrue();
	}

	/**
	 * Record in a worker's history a probe of an attempt stalled until after its
	 * give-back, from 1000 to 4000 us, and read the history back.
	 */
	private void recordGiveBack(boolean marked, boolean taken) {
		Path file = this.directory.resolve("w0.1.log");
		try (History worker = History.appendTo(file)) {
			worker.record("GIVEBACK", "name", "g:w1.1-1", "start", 1000, "end", 4000, "marked", marked, "taken", taken);
		}
		this.history.readWorker("w0.1", file);
	}

	/**
	 * Record in a worker's history a hold of a lock, its loss, and then its thread taking
	 * it again with the given outcome and releasing it, and read the history back.
	 */
	private void recordReentryAfterALoss(String outcome) {
		Path file = this.directory.resolve("w0.1.log");
		try (History worker = History.appendTo(file)) {
			worker.record("ACQ", "hold", "w0.1-1", "name", "c:r0", "token", 7, "api", WorkerOps.LOCK, "start", 1000,
					"end", 2000, "thread", "check-worker-0", "lease", 0);
			worker.record("LOST", "name", "c:r0", "token", 7, "reason", "expired", "at", 3000);
			worker.record("LOSS", "hold", "w0.1-1", "at", 3000);
			worker.record("REENTER", "hold", "w0.1-1", "start", 4000, "end", 4100, "outcome", outcome);
			worker.record("REL", "hold", "w0.1-1", "start", 5000, "end", 5100, "outcome", "LOST");
		}
		this.history.readWorker("w0.1", file);
	}

	/**
	 * Record in a worker's history an acquisition that fails as one whose wait for its
	 * registry's subscription to lock grants was cancelled, on this thread interrupted
	 * meanwhile or not, and read the history back.
	 */
	private void recordAcquisitionFailedByACancellation(boolean interrupted) {
		Path file = this.directory.resolve("w0.1.log");
		try (History worker = History.appendTo(file)) {
			RecordedWaits waits = new RecordedWaits(worker);
			assertThatExceptionOfType(DistributedLockException.class)
				.isThrownBy(() -> waits.record("c:r0", WorkerOps.LOCK, Duration.ofSeconds(5), () -> {
					if (interrupted) {
						Thread.currentThread().interrupt();
					}
					throw new DistributedLockException("Redis failed to subscribe to lock grants: null",
							new CancellationException());
				}, Boolean::booleanValue));
		}
		finally {
			Thread.interrupted();
		}
		this.history.readWorker("w0.1", file);
	}

	private Violations check() {
		Violations violations = new Violations();
		new PromiseChecks(this.history, violations).run();
		return violations;
	}

}
