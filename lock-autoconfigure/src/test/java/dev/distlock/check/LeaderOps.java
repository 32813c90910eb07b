package dev.distlock.check;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * One worker JVM's candidacy for the leadership {@link WorkerOps#LEADERSHIP}: asks every
 * few tens of milliseconds whether it leads (each yes recorded), and now and then yields
 * the leadership, or stops campaigning for a while and starts again, each recorded as a
 * {@code CALL} line.
 */
final class LeaderOps implements Runnable {

	private final RecordedLeadership leadership;

	private final History history;

	private final Random random;

	private final BooleanSupplier stopping;

	LeaderOps(RecordedLeadership leadership, History history, long seed, BooleanSupplier stopping) {
		this.leadership = leadership;
		this.history = history;
		this.random = new Random(seed);
		this.stopping = stopping;
	}

	@Override
	public void run() {
		this.leadership.start();
		while (!this.stopping.getAsBoolean()) {
			pause(20 + this.random.nextInt(40));
			boolean leader = this.leadership.isLeader();
			int draw = this.random.nextInt(400);
			if (leader && draw < 3) {
				this.history.recordCall("yield", this.leadership::yieldLeadership);
			}
			else if (draw == 3) {
				this.history.recordCall("withdraw", () -> {
					this.leadership.stop();
					pause(200 + this.random.nextInt(800));
					this.leadership.start();
				});
			}
		}
	}

	private static void pause(long millis) {
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
	}

}
