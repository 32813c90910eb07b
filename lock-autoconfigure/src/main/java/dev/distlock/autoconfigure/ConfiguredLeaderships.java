package dev.distlock.autoconfigure;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.Leadership;

import org.springframework.context.SmartLifecycle;

/**
 * The leaderships named in {@code distlock.leader.names}, started with the application
 * context and stopped when it stops, which releases the lock of a leadership this
 * instance holds so that a standby takes over at once. Starting them returns once each
 * has its first election decided ({@link Leadership#start()}), before the context
 * publishes that it was refreshed, which is when Spring schedules {@code @Scheduled}
 * jobs: a sole instance runs the first tick of a leader-only job as leader. In the phase
 * of the lock registry (the connection factory's): so the context stops them after the
 * beans of later phases, such as the task scheduler, which waits for the jobs that run,
 * and, since they depend on the registry, before the registry closes its connections.
 */
final class ConfiguredLeaderships implements SmartLifecycle {

	private final List<Leadership> leaderships;

	private final int phase;

	private final AtomicBoolean running = new AtomicBoolean();

	ConfiguredLeaderships(List<Leadership> leaderships, int phase) {
		this.leaderships = List.copyOf(leaderships);
		this.phase = phase;
	}

	@Override
	public void start() {
		if (this.running.compareAndSet(false, true)) {
			this.leaderships.forEach(Leadership::start);
		}
	}

	/**
	 * Stop the leaderships, each ending its term and releasing its lock first.
	 */
	@Override
	public void stop() {
		if (this.running.compareAndSet(true, false)) {
			this.leaderships.forEach(Leadership::stop);
		}
	}

	@Override
	public boolean isRunning() {
		return this.running.get();
	}

	@Override
	public int getPhase() {
		return this.phase;
	}

}
