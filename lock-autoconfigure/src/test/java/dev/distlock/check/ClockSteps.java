package dev.distlock.check;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.testsupport.RedisServer;

/**
 * The {@code clock-step} fault: steps the lock Redis' clock back, now and then, by 1 to
 * 2.5 s, far less than the fencing retention, right after a hold was granted. Fencing
 * tokens come from that clock in microseconds and from the name's last token, so the
 * holds granted within the step after it must still get greater tokens than those granted
 * just before it. A step back only makes Redis keep keys, queue entries and shares longer
 * than their holders count on, which the engine must survive; a step forward, which
 * shortens every lease on Redis, is no fault it promises to survive, and is never made.
 * <p>
 * Each step is recorded as a {@code CLOCK} line ({@code at=<micros> behind=<micros>}: how
 * far the clock is behind the machine's from then on, all steps so far), for the checks
 * that read a token as the time of its grant ({@link CheckHistory}). The fault lasts the
 * step and a watchdog period more: the keys written before it, which Redis keeps that
 * much longer, have by then been renewed under the stepped clock, or, left to expire, do
 * so before a later freeze past a lease ends, so that no thawed holder finds a lease that
 * Redis kept past its end. No step is made within the longest step and a second after
 * Redis lost its data (a restart or a flush): a token issued after both comes from the
 * stepped clock alone, which may be below a token issued just before them, a compound
 * fault the engine does not promise to survive (its tokens outlast each alone). It needs
 * libfaketime ({@link RedisServer#canStepClock()}); without it no step is due.
 */
final class ClockSteps {

	/** The name of the fault. */
	static final String KIND = "clock-step";

	/**
	 * When the first step is due at the earliest, after the run began: the workers' start
	 * included, so often as soon as the faults begin.
	 */
	private static final long FIRST_MILLIS = 8_000;

	/** How long after a step the next is due at the earliest. */
	private static final long INTERVAL_MILLIS = 20_000;

	/** The longest step back. */
	private static final long MAX_STEP_MILLIS = 2_500;

	/**
	 * How long after Redis lost its data no step is made: longer than the longest step
	 * and a margin.
	 */
	private static final long AFTER_DATA_LOSS_MILLIS = MAX_STEP_MILLIS + 1_000;

	private final Random random;

	private final RedisServer redis;

	private final History faults;

	private final boolean enabled;

	private long dueNanos;

	private long dataLostNanos = System.nanoTime() - millisToNanos(AFTER_DATA_LOSS_MILLIS);

	/**
	 * Steps the given Redis' clock, if it can be stepped.
	 * @param seed the seed of the steps' times and sizes
	 * @param redis the lock Redis
	 * @param faults the faults history, where the steps are recorded
	 */
	ClockSteps(long seed, RedisServer redis, History faults) {
		this.random = new Random(seed);
		this.redis = redis;
		this.faults = faults;
		this.enabled = redis.hasSteppableClock();
		this.dueNanos = System.nanoTime() + millisToNanos(FIRST_MILLIS + this.random.nextInt(8_000));
	}

	/**
	 * Return whether a step is due, and if so, when the next one is: a step that finds no
	 * hold to follow waits for the next.
	 * @return whether the clock can be stepped and the time for a step came
	 */
	boolean due() {
		long now = System.nanoTime();
		if (!this.enabled || now - this.dueNanos < 0
				|| now - this.dataLostNanos < millisToNanos(AFTER_DATA_LOSS_MILLIS)) {
			return false;
		}
		this.dueNanos = System.nanoTime() + millisToNanos(INTERVAL_MILLIS + this.random.nextInt(10_000));
		return true;
	}

	/**
	 * Tell that Redis just lost its data: no step is due for a while.
	 */
	void dataLost() {
		this.dataLostNanos = System.nanoTime();
	}

	/**
	 * Step the clock back, record it, and wait while the keys written before the step
	 * outlive their leases.
	 */
	void stepBack() {
		Duration step = Duration.ofMillis(1000 + this.random.nextInt((int) MAX_STEP_MILLIS - 1000));
		Duration behind = this.redis.clockOffset().minus(step).negated();
		this.faults.record("CLOCK", "at", History.now(), "behind", TimeUnit.NANOSECONDS.toMicros(behind.toNanos()));
		this.redis.stepClock(step.negated());
		LockSupport.parkNanos(step.plus(CheckWorkerMain.LEASE.dividedBy(3)).plusMillis(200).toNanos());
	}

	/**
	 * Return how the run steps clocks, for its log.
	 * @return whether clock steps are on, and why not when they are off
	 */
	String describe() {
		return this.enabled ? "clock steps on" : "clock steps off (no libfaketime: install the package libfaketime)";
	}

	private static long millisToNanos(long millis) {
		return TimeUnit.MILLISECONDS.toNanos(millis);
	}

}
