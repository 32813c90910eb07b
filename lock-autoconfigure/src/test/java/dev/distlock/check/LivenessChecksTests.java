package dev.distlock.check;

import dev.distlock.check.CheckHistory.Fault;
import dev.distlock.check.CheckHistory.Hold;
import dev.distlock.check.CheckHistory.Wait;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LivenessChecks} on made-up histories: a lock released while another
 * worker waits, then left free for {@code freeSeconds} before the next hold; a semaphore
 * with a permit left free while wanted; a writer behind a stream of readers, and behind a
 * {@link ReaderBurst}; a leader killed before a standby takes over.
 */
@Timeout(30)
class LivenessChecksTests {

	private static final String NAME = "c:r0";

	private static final String SEMAPHORE = "s:0";

	private static final long SECOND = 1_000_000;

	private final CheckHistory history = new CheckHistory();

	private final Violations violations = new Violations();

	LivenessChecksTests() {
		this.history.waits.add(new Wait("w1.1", NAME, "lock", 0, 100_000, 110_000, "timeout"));
	}

	@Test
	void lockLeftFreeWhileWantedBeyondTheBoundIsAViolation() {
		Violations violations = releasedThenServedAfter(4);
		assertThat(violations.counts()).isEqualTo("{lock-unserved=1}");
		assertThat(violations.report()).contains(NAME + " was free and wanted for 3500 ms");
	}

	@Test
	void lockServedWithinTheBoundIsNoViolation() {
		assertThat(releasedThenServedAfter(2).isEmpty()).isTrue();
	}

	@Test
	void faultOnRedisExcusesEveryWaiter() {
		this.history.faults.add(new Fault("redis-pause", 2 * SECOND, 2 * SECOND + 200_000, false, "redis"));
		assertThat(releasedThenServedAfter(4).isEmpty()).isTrue();
	}

	@Test
	void clockStepOfRedisExcusesEveryWaiter() {
		this.history.faults.add(new Fault(ClockSteps.KIND, 2 * SECOND, 3 * SECOND, false, "redis"));
		assertThat(releasedThenServedAfter(4).isEmpty()).isTrue();
	}

	@Test
	void holdWithAFixedLeaseFreesItsLockOnceItsLeaseAndDelayRanOutFromItsToken() {
		fixedLeaseHoldAcquiredAt1200MsWithTokenAt200Ms(0);
		assertThat(releasedThenServedAfter(4).counts()).isEqualTo("{lock-unserved=1}");
	}

	@Test
	void holdGrantedWhileRedisClockWasBehindCountsFromItsGrantNotItsToken() {
		fixedLeaseHoldAcquiredAt1200MsWithTokenAt200Ms(SECOND);
		assertThat(releasedThenServedAfter(4).isEmpty()).isTrue();
	}

	/**
	 * Record a hold of {@code w2.1} with a fixed lease of a second, acquired at 1.2 s
	 * with a token of 0.2 s, issued by a Redis whose clock was the given time behind, and
	 * never released.
	 */
	private void fixedLeaseHoldAcquiredAt1200MsWithTokenAt200Ms(long clockBehind) {
		Hold fixedLease = new Hold("w2.1-1", "w2.1", NAME, 200_000, "lock", 1_100_000, 1_200_000, 1000);
		fixedLease.clockBehind = clockBehind;
		this.history.holds.put(fixedLease.id, fixedLease);
	}

	@Test
	void faultOnTheWaitingWorkerExcusesItsWait() {
		this.history.faults.add(new Fault("waiter-pause", 2 * SECOND, 2 * SECOND + 200_000, false, "w1.1:" + NAME));
		assertThat(releasedThenServedAfter(4).isEmpty()).isTrue();
	}

	@Test
	void faultOnAnotherWorkerExcusesNothing() {
		this.history.faults.add(new Fault("jvm-pause", 2 * SECOND, 2 * SECOND + 200_000, false, "w2.1"));
		assertThat(releasedThenServedAfter(4).counts()).isEqualTo("{lock-unserved=1}");
	}

	@Test
	void killDuringAnAcquisitionExcusesTheGrantItMayHaveGot() {
		this.history.unfinishedWaits.add(new Wait("w2.1", NAME, "lock", 0, 1_400_000, 1_400_000, "unfinished"));
		this.history.killedAt.put("w2.1", 1_500_000L);
		assertThat(releasedThenServedAfter(4).isEmpty()).isTrue();
	}

	@Test
	void killOfAnotherWaiterExcusesNothing() {
		this.history.killedAt.put("w2.1", 1_500_000L);
		assertThat(releasedThenServedAfter(4).counts()).isEqualTo("{lock-unserved=1}");
	}

	@Test
	void holdRecordedLateCountsFromItsGrant() {
		Hold handedOver = new Hold("w1.1-1", "w1.1", NAME, 2 * SECOND, "lock", 500_000, 5 * SECOND, 0);
		this.history.holds.put(handedOver.id, handedOver);
		assertThat(releasedThenServedAfter(4).isEmpty()).isTrue();
	}

	@Test
	void firstAcquisitionsOfAWorkerJustStartedAreNotWatched() {
		this.history.waits.remove(0);
		assertThat(releasedThenServedAfter(4).isEmpty()).isTrue();
	}

	@Test
	void semaphoreWithAFreePermitLeftUnservedWhileWantedIsAViolation() {
		this.history.permits.put(SEMAPHORE, 2);
		released(new Hold("w0.1-2", "w0.1", SEMAPHORE, 100_000, WorkerOps.PERMIT, 0, 100_000, 0), 10 * SECOND);
		this.history.waits.add(new Wait("w1.1", SEMAPHORE, WorkerOps.PERMIT, 5000, SECOND, 5 * SECOND, "acquired"));
		released(new Hold("w1.1-2", "w1.1", SEMAPHORE, 5 * SECOND, WorkerOps.PERMIT, SECOND, 5 * SECOND, 0),
				6 * SECOND);
		Violations violations = check();
		assertThat(violations.counts()).isEqualTo("{permit-unserved=1}");
		assertThat(violations.report()).contains(SEMAPHORE + " was free and wanted for 4000 ms");
	}

	@Test
	void semaphoreWithEveryPermitHeldIsNoViolation() {
		this.history.permits.put(SEMAPHORE, 2);
		released(new Hold("w0.1-2", "w0.1", SEMAPHORE, 100_000, WorkerOps.PERMIT, 0, 100_000, 0), 10 * SECOND);
		released(new Hold("w2.1-2", "w2.1", SEMAPHORE, 200_000, WorkerOps.PERMIT, 0, 200_000, 0), 4 * SECOND);
		this.history.waits.add(new Wait("w1.1", SEMAPHORE, WorkerOps.PERMIT, 5000, SECOND, 5 * SECOND, "acquired"));
		released(new Hold("w1.1-2", "w1.1", SEMAPHORE, 5 * SECOND, WorkerOps.PERMIT, SECOND, 5 * SECOND, 0),
				6 * SECOND);
		assertThat(check().isEmpty()).isTrue();
	}

	@Test
	void writerKeptOutByReadersThatCameAfterItIsStarved() {
		Violations violations = writerWaitingFromOneSecondBehindReadersStartedAt(2_100_000);
		assertThat(violations.counts()).isEqualTo("{writer-starved=1}");
		assertThat(violations.report()).contains("kept out for 3500 ms");
	}

	@Test
	void writerKeptOutByReadersThatCameBeforeItIsNotStarved() {
		assertThat(writerWaitingFromOneSecondBehindReadersStartedAt(900_000).isEmpty()).isTrue();
	}

	/**
	 * Record a read share of {@code w0.1} from 0.1 s to 2 s, a writer of {@code w1.1}
	 * waiting from 1 s with five seconds to wait, and read shares of {@code w2.1} that
	 * overlap each other until the writer's wait ran out, the first acquired at 2.2 s and
	 * all begun at the given time; then run the check.
	 */
	private Violations writerWaitingFromOneSecondBehindReadersStartedAt(long readersStart) {
		String name = WorkerOps.READ_WRITE;
		released(new Hold("w0.1-2", "w0.1", name, 100_000, WorkerOps.READ, 0, 100_000, 0), 2 * SECOND);
		this.history.waits.add(new Wait("w1.1", name, WorkerOps.WRITE, 5000, SECOND, 6 * SECOND, "timeout"));
		for (int i = 0; i < 4; i++) {
			long acquired = 2_200_000 + i * 1_500_000L;
			released(new Hold("w2.1-" + i, "w2.1", name, acquired, WorkerOps.READ, Math.min(readersStart, acquired),
					acquired, 0), acquired + 2 * SECOND);
		}
		return check();
	}

	@ParameterizedTest
	@CsvSource({ "400, 15", "699, 9" })
	void readerBurstLetPastItsWaitingWriterStarvesIt(int gapMillis, int readersBehind) {
		LivenessChecks check = readerBurst(new ReaderBurst(gapMillis), false);
		assertThat(this.violations.counts()).isEqualTo("{writer-starved=1}");
		assertThat(this.violations.report()).contains("w1.1(write " + WorkerOps.READ_WRITE + " wait=8000ms");
		assertThat(check.summary()).contains("readersBehindWriters=" + readersBehind);
	}

	@ParameterizedTest
	@ValueSource(ints = { 400, 699 })
	void readerBurstQueuedBehindItsWaitingWriterIsNoViolation(int gapMillis) {
		LivenessChecks check = readerBurst(new ReaderBurst(gapMillis), true);
		assertThat(this.violations.isEmpty()).isTrue();
		assertThat(check.summary()).contains("readersBehindWriters=2");
	}

	/**
	 * Record a reader burst from one second as its worker would: the first reader's share
	 * of {@code w0.1} and the writer of {@code w1.1}, which takes the lock 10 ms after
	 * the first reader's release and keeps it 10 ms, or waits in vain when readers go
	 * past it; and the later readers of {@code w2.1}, which come in 10 ms after the
	 * writer's release when they queue behind it, at once otherwise. Fencing tokens are
	 * the times of the grants. Then run the check.
	 */
	private LivenessChecks readerBurst(ReaderBurst burst, boolean readersQueueBehindTheWriter) {
		String name = WorkerOps.READ_WRITE;
		long firstReleased = SECOND + micros(burst.firstKeepMillis());
		burstReader("w0.1-0", "w0.1", SECOND, SECOND, firstReleased);
		long writerStart = SECOND + micros(burst.writerOffset());
		long writerReleased = 0;
		if (readersQueueBehindTheWriter) {
			long acquired = firstReleased + 10_000;
			writerReleased = acquired + 10_000;
			this.history.waits.add(new Wait("w1.1", name, WorkerOps.WRITE, ReaderBurst.WRITER_WAIT.toMillis(),
					writerStart, acquired, "acquired"));
			released(new Hold("w1.1-1", "w1.1", name, acquired, WorkerOps.WRITE, writerStart, acquired, 0),
					writerReleased);
		}
		else {
			this.history.waits.add(new Wait("w1.1", name, WorkerOps.WRITE, ReaderBurst.WRITER_WAIT.toMillis(),
					writerStart, writerStart + micros(ReaderBurst.WRITER_WAIT.toMillis()), "timeout"));
		}
		for (int reader = 1; reader <= burst.laterReaders(); reader++) {
			long arrived = SECOND + micros(burst.readerOffset(reader));
			long acquired = (arrived < writerReleased) ? writerReleased + 10_000 : arrived;
			burstReader("w2.1-" + reader, "w2.1", arrived, acquired, acquired + micros(burst.keepMillis(reader)));
		}
		LivenessChecks check = new LivenessChecks(this.history, this.violations);
		check.run();
		return check;
	}

	private void burstReader(String id, String incarnation, long arrived, long acquired, long releasedAt) {
		this.history.waits.add(new Wait(incarnation, WorkerOps.READ_WRITE, WorkerOps.READ,
				ReaderBurst.READER_WAIT.toMillis(), arrived, acquired, "acquired"));
		released(new Hold(id, incarnation, WorkerOps.READ_WRITE, acquired, WorkerOps.READ, arrived, acquired, 0),
				releasedAt);
	}

	private static long micros(long millis) {
		return millis * 1000;
	}

	@Test
	void noStandbyTakingOverFromAKilledLeaderIsAViolation() {
		Violations violations = leaderKilledAtOneSecondThenStandbyGrantedAt(8 * SECOND);
		assertThat(violations.counts()).isEqualTo("{leader-missing=1}");
		assertThat(violations.report()).contains(WorkerOps.LEADERSHIP + " was free and wanted for 4000 ms");
	}

	@Test
	void standbyTakingOverWithinTheBoundIsNoViolation() {
		assertThat(leaderKilledAtOneSecondThenStandbyGrantedAt(5 * SECOND).isEmpty()).isTrue();
	}

	/**
	 * Record a term of {@code w0.1} from 0.1 s until its worker was killed at 1 s, a
	 * candidacy of {@code w1.1} from 0.5 s to 10 s and its term granted at the given
	 * time; then run the check.
	 */
	private Violations leaderKilledAtOneSecondThenStandbyGrantedAt(long grantedAt) {
		String name = WorkerOps.LEADERSHIP;
		this.history.killedAt.put("w0.1", SECOND);
		Hold killed = new Hold("w0.1-term-1", "w0.1", name, 100_000, WorkerOps.TERM, 100_000, 100_000, 0);
		this.history.holds.put(killed.id, killed);
		this.history.waits.add(new Wait("w1.1", name, WorkerOps.CANDIDACY, 9501, 500_000, 10 * SECOND, "candidacy"));
		Hold standby = new Hold("w1.1-term-2", "w1.1", name, grantedAt, WorkerOps.TERM, grantedAt, grantedAt, 0);
		standby.releaseStart = 10 * SECOND;
		standby.releaseOutcome = "REVOKED";
		this.history.holds.put(standby.id, standby);
		return check();
	}

	private void released(Hold hold, long releasedAt) {
		hold.releaseStart = releasedAt - 10_000;
		hold.releaseEnd = releasedAt;
		hold.releaseOutcome = "OK";
		this.history.holds.put(hold.id, hold);
	}

	/**
	 * Record a hold of {@code w0.1} released at one second, a wait of {@code w1.1} from
	 * half a second with five seconds to wait (after an attempt answered at once), and
	 * its hold granted the given seconds after the release; then run the check. Fencing
	 * tokens are the times of the grants.
	 */
	private Violations releasedThenServedAfter(long freeSeconds) {
		Hold released = new Hold("w0.1-1", "w0.1", NAME, 100_000, "lock", 0, 100_000, 0);
		released.releaseStart = 990_000;
		released.releaseEnd = SECOND;
		released.releaseOutcome = "OK";
		this.history.holds.put(released.id, released);
		long servedAt = SECOND + freeSeconds * SECOND;
		this.history.waits.add(new Wait("w1.1", NAME, "lock", 5000, 500_000, servedAt, "acquired"));
		this.history.holds.putIfAbsent("w1.1-1",
				new Hold("w1.1-1", "w1.1", NAME, servedAt, "lock", 500_000, servedAt, 0));
		return check();
	}

	private Violations check() {
		new LivenessChecks(this.history, this.violations).run();
		return this.violations;
	}

}
