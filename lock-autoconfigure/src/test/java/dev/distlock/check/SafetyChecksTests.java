package dev.distlock.check;

import java.nio.file.Path;
import java.util.Map;

import dev.distlock.check.CheckHistory.Fault;
import dev.distlock.check.CheckHistory.FencedWrite;
import dev.distlock.check.CheckHistory.Freeze;
import dev.distlock.check.CheckHistory.Hold;
import dev.distlock.check.CheckHistory.Read;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SafetyChecks} on made-up histories of locks, read/write locks,
 * semaphores and leaderships: holds believed valid from their acquisition to their
 * release, each given as the seconds it spans.
 */
@Timeout(30)
class SafetyChecksTests {

	private static final String SEMAPHORE = "s:0";

	private static final long SECOND = 1_000_000;

	private final CheckHistory history = new CheckHistory();

	private int holds;

	@Test
	void morePermitHoldersThanPermitsIsAViolation() {
		Violations violations = threePermitsOfTwoWithTheThirdAcquiredAt(3);
		assertThat(violations.counts()).isEqualTo("{permits-exceeded=1}");
		assertThat(violations.report()).contains("3 holders of 2 permits believed valid at once");
	}

	@Test
	void asManyPermitHoldersAsPermitsIsNoViolation() {
		assertThat(threePermitsOfTwoWithTheThirdAcquiredAt(4).isEmpty()).isTrue();
	}

	@Test
	void permitHoldersBeyondPermitsAfterADataLossAreExcused() {
		this.history.permits.put(SEMAPHORE, 1);
		this.history.faults.add(new Fault("redis-flush", 2 * SECOND, 2 * SECOND + 1000, true, "redis"));
		hold("w0.1", WorkerOps.PERMIT, SEMAPHORE, 1, 4);
		hold("w1.1", WorkerOps.PERMIT, SEMAPHORE, 3, 5);
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void permitTokensOutOfGrantOrderAreAViolation() {
		this.history.permits.put(SEMAPHORE, 2);
		hold("w0.1", WorkerOps.PERMIT, SEMAPHORE, 1, 2);
		Hold later = new Hold("w1.1-9", "w1.1", SEMAPHORE, 500_000, WorkerOps.PERMIT, 3 * SECOND, 3 * SECOND, 0);
		this.history.holds.put(later.id, later);
		assertThat(check().counts()).isEqualTo("{token-order=1}");
	}

	@Test
	void holdsOverlappingAfterADataLossAreExcusedOnlyWhenOneWasGrantedBeforeIt() {
		this.history.faults.add(new Fault("redis-flush", 2 * SECOND, 2 * SECOND + 1000, true, "redis"));
		hold("w0.1", WorkerOps.LOCK, "c:r0", 1, 4);
		heldAfterWaitingSince(SECOND, "w1.1", "c:r0", 3, 5);
		assertThat(check().isEmpty()).isTrue();
		this.history.holds.clear();
		hold("w0.1", WorkerOps.LOCK, "c:r0", 3, 5);
		heldAfterWaitingSince(SECOND, "w1.1", "c:r0", 4, 6);
		assertThat(check().counts()).isEqualTo("{overlap=1}");
	}

	@Test
	void lockGrantedWithinTheLockDelayOfAHoldWhoseLeaseRanOutIsAViolation() {
		ranOutWithADelay(hold("w0.1", WorkerOps.LOCK, "c:r0", 1, 2));
		hold("w1.1", WorkerOps.LOCK, "c:r0", 2, 3);
		Violations violations = check();
		assertThat(violations.counts()).isEqualTo("{delay-broken=1}");
		assertThat(violations.report()).contains("before the lock delay of a hold whose lease ran out ended");
	}

	@Test
	void lockGrantedAfterTheLockDelayOrAfterAReleaseOrAKillIsNoViolation() {
		ranOutWithADelay(hold("w0.1", WorkerOps.LOCK, "c:r0", 1, 2));
		hold("w1.1", WorkerOps.LOCK, "c:r0", 3, 4);
		hold("w0.1", WorkerOps.LOCK, "c:r0", 4, 5).delayMillis = 500;
		hold("w1.1", WorkerOps.LOCK, "c:r0", 5, 6);
		Hold killedBeforeItsReleaseWasRecorded = hold("w2.1", WorkerOps.LOCK, "c:r0", 6, 7);
		killedBeforeItsReleaseWasRecorded.releaseOutcome = "";
		killedBeforeItsReleaseWasRecorded.delayMillis = 500;
		hold("w1.1", WorkerOps.LOCK, "c:r0", 7, 8);
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void lockGrantedWithinTheLockDelayOfAHoldReportedLostByAReleaseThatLostItsAnswerIsNoViolation() {
		Hold releasedUnderACut = hold("w0.1", WorkerOps.LOCK, "c:r0", 1, 2);
		ranOutWithADelay(releasedUnderACut);
		releasedUnderACut.releaseAnswerLost = true;
		hold("w1.1", WorkerOps.LOCK, "c:r0", 2, 3);
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void releaseAnswerMayBeLostToACutThatBeganDuringItOrToAStallThatOutlastedTheCommandTimeout() {
		this.history.faults.add(new Fault("proxy-stall", SECOND, 2 * SECOND, false, "w0.1"));
		this.history.faults.add(new Fault("holder-cut", 3 * SECOND, 4 * SECOND, false, "w1.1"));
		assertThat(this.history.answerMayBeLost("w0.1", 2 * SECOND - 50_000, 2 * SECOND + 10_000)).isFalse();
		assertThat(this.history.answerMayBeLost("w0.1", SECOND + 500_000, 2 * SECOND + 600_000)).isTrue();
		assertThat(this.history.answerMayBeLost("w1.1", 3 * SECOND - 20_000, 4 * SECOND + 10_000)).isTrue();
		assertThat(this.history.answerMayBeLost("w1.1", 4 * SECOND - 50_000, 4 * SECOND + 10_000)).isFalse();
		assertThat(this.history.answerMayBeLost("w0.1", 3 * SECOND - 20_000, 3 * SECOND + 10_000)).isFalse();
	}

	@Test
	void lockGrantedWithinTheLockDelayOfAHoldLostNearAFaultOnAQuorumNodeIsExcusedButAnOverlapIsNot() {
		this.history.faults.add(new Fault("node-restart", SECOND + 500_000, 2 * SECOND, false, "node1"));
		ranOutWithADelay(hold("w0.1", WorkerOps.LOCK, "c:r0", 1, 2));
		hold("w1.1", WorkerOps.LOCK, "c:r0", 2, 3);
		assertThat(check().isEmpty()).isTrue();
		this.history.holds.clear();
		hold("w0.1", WorkerOps.LOCK, "c:r0", 1, 4);
		heldAfterWaitingSince(SECOND, "w1.1", "c:r0", 3, 5);
		assertThat(check().counts()).isEqualTo("{overlap=1}");
	}

	@Test
	void holdFoundGoneBeforeTheEndOfTheLeaseItsHolderCountedOnIsAViolationUnlessRedisLostItsData() {
		Hold hold = hold("w0.1", WorkerOps.PERMIT, SEMAPHORE, 1, 3);
		hold.leaseEnd = 3 * SECOND;
		this.history.foundGone.put(CheckHistory.lostKey("w0.1", SEMAPHORE, hold.token), 2 * SECOND);
		assertThat(check().counts()).isEqualTo("{lost-early=1}");
		this.history.faults.add(new Fault("redis-flush", 2 * SECOND - 1000, 2 * SECOND - 500, true, "redis"));
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void holdFoundGoneEarlyByAReleaseWhoseAnswerMayHaveBeenLostIsNoViolation() {
		Hold hold = hold("w0.1", WorkerOps.PERMIT, SEMAPHORE, 1, 3);
		hold.leaseEnd = 3 * SECOND;
		String key = CheckHistory.lostKey("w0.1", SEMAPHORE, hold.token);
		this.history.foundGone.put(key, 2 * SECOND);
		this.history.foundGoneByRelease.add(key);
		assertThat(check().counts()).isEqualTo("{lost-early=1}");
		hold.releaseAnswerLost = true;
		assertThat(check().isEmpty()).isTrue();
		this.history.foundGoneByRelease.clear();
		assertThat(check().counts()).as("found gone by a renewal").isEqualTo("{lost-early=1}");
	}

	@Test
	void holdFoundGoneAfterTheEndOfTheLeaseItsHolderCountedOnIsNoViolation() {
		Hold hold = hold("w0.1", WorkerOps.PERMIT, SEMAPHORE, 1, 2);
		hold.leaseEnd = 2 * SECOND;
		this.history.foundGone.put(CheckHistory.lostKey("w0.1", SEMAPHORE, hold.token), 2 * SECOND + 5000);
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void permitGrantedWithinTheLockDelayOfAPermitWhoseLeaseRanOutIsAViolation() {
		this.history.permits.put(SEMAPHORE, 1);
		ranOutWithADelay(hold("w0.1", WorkerOps.PERMIT, SEMAPHORE, 1, 2));
		hold("w1.1", WorkerOps.PERMIT, SEMAPHORE, 2, 3);
		Violations violations = check();
		assertThat(violations.counts()).isEqualTo("{delay-broken=1}");
		assertThat(violations.report()).contains("kept their place at once, some only by the lock delay");
	}

	@Test
	void fenceAcceptingALowerTokenAfterAHigherIsAViolation() {
		this.history.fencedWrites
			.add(new FencedWrite("w1.1-2.1", "c:r0", 2 * SECOND, "ACCEPTED", 3 * SECOND, 3 * SECOND + 1000));
		this.history.fencedWrites
			.add(new FencedWrite("w0.1-1.1", "c:r0", SECOND + 500_000, "ACCEPTED", 4 * SECOND, 4 * SECOND + 1000));
		Violations violations = check();
		assertThat(violations.counts()).isEqualTo("{fence-order=1}");
		assertThat(violations.report()).contains("w0.1-1.1").contains("accepted after");
	}

	@Test
	void fenceAcceptingWritesThatOverlapInTimeOrARefusedLowerTokenIsNoViolation() {
		this.history.fencedWrites
			.add(new FencedWrite("w1.1-2.1", "c:r0", 2 * SECOND, "ACCEPTED", 3 * SECOND, 3 * SECOND + 1000));
		this.history.fencedWrites
			.add(new FencedWrite("w0.1-1.1", "c:r0", SECOND, "ACCEPTED", 3 * SECOND + 500, 3 * SECOND + 2000));
		this.history.fencedWrites
			.add(new FencedWrite("w0.1-3.1", "c:r0", SECOND, "REFUSED", 4 * SECOND, 4 * SECOND + 1000));
		this.history.fencedWrites
			.add(new FencedWrite("w0.1-4.1", "c:r1", SECOND, "ACCEPTED", 4 * SECOND, 4 * SECOND + 1000));
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void writerOverlappingAReaderIsAViolation() {
		assertThat(overlapping(WorkerOps.READ, WorkerOps.WRITE, WorkerOps.READ_WRITE).counts())
			.isEqualTo("{overlap=1}");
	}

	@Test
	void readerOverlappingAWriterIsAViolation() {
		assertThat(overlapping(WorkerOps.WRITE, WorkerOps.READ, WorkerOps.READ_WRITE).counts())
			.isEqualTo("{overlap=1}");
	}

	@Test
	void readersOverlappingEachOtherIsNoViolation() {
		hold("w0.1", WorkerOps.READ, WorkerOps.READ_WRITE, 1, 4);
		hold("w1.1", WorkerOps.READ, WorkerOps.READ_WRITE, 2, 5);
		hold("w0.1", WorkerOps.READ, WorkerOps.READ_WRITE, 3, 6);
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void readShareTakenByTheWritersOwnThreadIsADowngrade() {
		hold("w0.1", WorkerOps.WRITE, WorkerOps.READ_WRITE, 1, 3);
		hold("w0.1", WorkerOps.READ, WorkerOps.READ_WRITE, 2, 4);
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void readShareTakenByAnotherThreadOfTheWritersJvmIsAViolation() {
		hold("w0.1", WorkerOps.WRITE, WorkerOps.READ_WRITE, 1, 3);
		Hold other = hold("w0.1", WorkerOps.READ, WorkerOps.READ_WRITE, 2, 4);
		other.thread = "check-worker-1";
		assertThat(check().counts()).isEqualTo("{overlap=1}");
	}

	@Test
	void counterChangedUnderAReadShareIsAViolation() {
		Hold reader = hold("w0.1", WorkerOps.READ, WorkerOps.READ_WRITE, 1, 4);
		this.history.reads.add(new Read(reader.id, reader.name, "7", "8", 2 * SECOND, 3 * SECOND, true, true));
		assertThat(check().counts()).isEqualTo("{read-changed=1}");
	}

	@Test
	void counterChangedUnderAReadShareFoundInvalidIsNoViolation() {
		Hold reader = hold("w0.1", WorkerOps.READ, WorkerOps.READ_WRITE, 1, 4);
		this.history.reads.add(new Read(reader.id, reader.name, "7", "8", 2 * SECOND, 3 * SECOND, true, false));
		this.history.reads.add(new Read(reader.id, reader.name, "8", "8", 3 * SECOND, 3 * SECOND, true, true));
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void leadersWhoseTermsOverlapIsAViolation() {
		Violations violations = overlapping(WorkerOps.TERM, WorkerOps.TERM, WorkerOps.LEADERSHIP);
		assertThat(violations.counts()).isEqualTo("{overlap=1}");
		assertThat(violations.report()).contains("both believed valid for 1000000 us");
	}

	@Test
	void leaderFrozenWhenItsTermShouldHaveEndedIsExcused() {
		this.history.faults
			.add(new Fault("holder-pause", 2 * SECOND, 3 * SECOND + 500_000, false, "w0.1:" + WorkerOps.LEADERSHIP));
		assertThat(overlapping(WorkerOps.TERM, WorkerOps.TERM, WorkerOps.LEADERSHIP).isEmpty()).isTrue();
	}

	@Test
	void leaderFrozenBeforeItsTermIsNotExcused() {
		this.history.faults.add(new Fault("jvm-pause", 0, 500_000, false, "w0.1"));
		assertThat(overlapping(WorkerOps.TERM, WorkerOps.TERM, WorkerOps.LEADERSHIP).counts()).isEqualTo("{overlap=1}");
	}

	@Test
	void leaderSayingItLeadsOnceThawedBesideALaterTermIsAViolation() {
		this.history.faults
			.add(new Fault("holder-pause", 2 * SECOND, 3 * SECOND + 500_000, false, "w0.1:" + WorkerOps.LEADERSHIP));
		Hold earlier = hold("w0.1", WorkerOps.TERM, WorkerOps.LEADERSHIP, 1, 4);
		earlier.saidLeader = 3 * SECOND + 800_000;
		hold("w1.1", WorkerOps.TERM, WorkerOps.LEADERSHIP, 3, 5);
		assertThat(check().counts()).isEqualTo("{overlap=1}");
	}

	@Test
	void grantToldOnceItsTermHadEndedIsNoBeliefBesideALaterTerm(@TempDir Path directory) {
		hold("w1.1", WorkerOps.TERM, WorkerOps.LEADERSHIP, 3, 5);
		recordTermToldAt(directory, 3 * SECOND + 500_000, false);
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void grantToldWhileItsTermWasValidBesideALaterTermIsAViolation(@TempDir Path directory) {
		hold("w1.1", WorkerOps.TERM, WorkerOps.LEADERSHIP, 3, 5);
		recordTermToldAt(directory, 3 * SECOND + 500_000, true);
		assertThat(check().counts()).isEqualTo("{overlap=1}");
	}

	@Test
	void holdBelievedValidAfterAFreezeLongerThanItsLeaseIsAViolation() {
		hold("w0.1", WorkerOps.LOCK, "c:r0", 1, 4);
		this.history.freezes.add(new Freeze("w0.1", SECOND + 500_000, 3 * SECOND + 500_000));
		Violations violations = check();
		assertThat(violations.counts()).isEqualTo("{valid-after-lease=1}");
		assertThat(violations.report()).contains("after a freeze of 2000 ms");
	}

	@Test
	void holdFrozenForLessThanItsLeaseAndAMarginIsNoViolation() {
		hold("w0.1", WorkerOps.LOCK, "c:r0", 1, 4);
		this.history.freezes.add(new Freeze("w0.1", SECOND + 500_000, 3 * SECOND + 100_000));
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void holdOfAnotherWorkerThanTheFrozenOneIsNoViolation() {
		hold("w1.1", WorkerOps.LOCK, "c:r0", 1, 4);
		this.history.freezes.add(new Freeze("w0.1", SECOND + 500_000, 3 * SECOND + 500_000));
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void termsOneAfterTheOtherAreNoViolation() {
		hold("w0.1", WorkerOps.TERM, WorkerOps.LEADERSHIP, 1, 3);
		hold("w1.1", WorkerOps.TERM, WorkerOps.LEADERSHIP, 3, 5);
		hold("w0.1", WorkerOps.TERM, WorkerOps.LEADERSHIP, 6, 7);
		assertThat(check().isEmpty()).isTrue();
	}

	/**
	 * Record a hold of {@code w0.1} from 1 s to 4 s and one of {@code w1.1} from 3 s to 5
	 * s, taken through the given APIs; then run the check.
	 */
	/**
	 * Record in a worker's history a term granted in Redis at 1 s whose grant was told at
	 * the given time, valid then or not, and revoked just after; then read it back.
	 */
	private void recordTermToldAt(Path directory, long at, boolean valid) {
		Path file = directory.resolve("w0.1.log");
		try (History worker = History.appendTo(file)) {
			worker.record("GRANTED", "name", WorkerOps.LEADERSHIP, "token", SECOND, "at", at, "valid", valid);
			worker.record("REVOKED", "name", WorkerOps.LEADERSHIP, "token", SECOND, "reason", "its_lease_ran_out", "at",
					at + 3500);
		}
		this.history.readWorker("w0.1", file);
	}

	private Violations overlapping(String earlierApi, String laterApi, String name) {
		hold("w0.1", earlierApi, name, 1, 4);
		hold("w1.1", laterApi, name, 3, 5);
		return check();
	}

	/**
	 * Record permits of a semaphore of two held from 1 s to 4 s, from 2 s to 5 s and from
	 * the given second to 6 s; then run the check.
	 */
	private Violations threePermitsOfTwoWithTheThirdAcquiredAt(long thirdAcquiredSecond) {
		this.history.permits.put(SEMAPHORE, 2);
		hold("w0.1", WorkerOps.PERMIT, SEMAPHORE, 1, 4);
		hold("w1.1", WorkerOps.PERMIT, SEMAPHORE, 2, 5);
		hold("w2.1", WorkerOps.PERMIT, SEMAPHORE, thirdAcquiredSecond, 6);
		return check();
	}

	/**
	 * Record a hold on thread {@code check-worker-0} of the given incarnation, acquired
	 * and released at the given seconds, its fencing token the time of its acquisition.
	 */
	private Hold hold(String incarnation, String api, String name, long acquiredSecond, long releasedSecond) {
		return hold(incarnation, api, name, acquiredSecond * SECOND - 1000, acquiredSecond, releasedSecond);
	}

	/**
	 * Record a lock that began to be acquired at the given time (microseconds) and was
	 * granted and released at the given seconds.
	 */
	private void heldAfterWaitingSince(long start, String incarnation, String name, long acquiredSecond,
			long releasedSecond) {
		hold(incarnation, WorkerOps.LOCK, name, start, acquiredSecond, releasedSecond);
	}

	private Hold hold(String incarnation, String api, String name, long start, long acquiredSecond,
			long releasedSecond) {
		String id = incarnation + "-" + (++this.holds);
		Hold hold = new Hold(id, incarnation, name, acquiredSecond * SECOND, api, start, acquiredSecond * SECOND, 0);
		hold.thread = "check-worker-0";
		hold.releaseStart = releasedSecond * SECOND;
		hold.releaseEnd = releasedSecond * SECOND + 1000;
		hold.releaseOutcome = "OK";
		hold.confirmedUntil = hold.releaseStart;
		this.history.holds.put(id, hold);
		return hold;
	}

	/**
	 * Make a hold one whose release found its lease over, with a lock delay of half a
	 * second.
	 */
	private static void ranOutWithADelay(Hold hold) {
		hold.releaseOutcome = "LOST";
		hold.delayMillis = 500;
	}

	private Violations check() {
		Violations violations = new Violations();
		new SafetyChecks(this.history, violations).run(Map.of());
		return violations;
	}

}
