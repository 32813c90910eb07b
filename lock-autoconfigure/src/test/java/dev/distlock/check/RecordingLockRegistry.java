package dev.distlock.check;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockRegistry;

/**
 * A {@link LockRegistry} in front of the real one that records every hold it hands out in
 * a {@link History}, whoever asked: the workers' own code or the {@code @DistributedLock}
 * interceptor, and a {@code LOSS} line each time a hold's loss action runs.
 */
final class RecordingLockRegistry implements LockRegistry {

	private final LockRegistry delegate;

	private final History history;

	private final String incarnation;

	private final AtomicLong sequence = new AtomicLong();

	/**
	 * The hold of each name acquired last by each thread: the interceptor acquires a
	 * call's locks on the thread that then runs its body (the calling thread, or for a
	 * {@code Mono} the thread that acquired on subscription), so the body finds its own
	 * holds, not those of another call of the same JVM.
	 */
	private final ThreadLocal<Map<String, RecordedHold>> latestByThread = ThreadLocal.withInitial(HashMap::new);

	private final ThreadLocal<Map<String, RecordedHold>> ownedByThread = ThreadLocal.withInitial(HashMap::new);

	RecordingLockRegistry(LockRegistry delegate, History history, String incarnation) {
		this.delegate = delegate;
		this.history = history;
		this.incarnation = incarnation;
	}

	@Override
	public FencedLock obtain(String name, LeaseOptions options) {
		return new RecordedLock(this.delegate.obtain(name, options), this);
	}

	@Override
	public Optional<LockLease> tryAcquire(String name, Duration waitTime, LeaseOptions options) {
		long start = History.now();
		Optional<LockLease> lease = this.delegate.tryAcquire(name, waitTime, options);
		return lease.map((held) -> new RecordedLease(held, acquired(name, held, start, "lease")));
	}

	/**
	 * Return the hold of the given name acquired last by the current thread, for the body
	 * of an annotated method that needs the fencing token of each of its locks.
	 * @param name the lock's name
	 * @return the hold
	 */
	RecordedHold latest(String name) {
		RecordedHold hold = this.latestByThread.get().get(name);
		if (hold == null) {
			throw new IllegalStateException("No hold of '" + name + "' recorded");
		}
		return hold;
	}

	void ownedAcquired(FencedLock lock, long start) {
		this.ownedByThread.get().put(lock.name(), acquired(lock.name(), lock.currentHold(), start, "lock"));
	}

	RecordedHold owned(FencedLock lock) {
		RecordedHold hold = this.ownedByThread.get().get(lock.name());
		if (hold == null) {
			throw new IllegalMonitorStateException("Lock '" + lock.name() + "' is not held by this thread");
		}
		return hold;
	}

	void ownedReleased(FencedLock lock, Runnable unlock) {
		RecordedHold hold = this.ownedByThread.get().get(lock.name());
		if (hold == null) {
			unlock.run();
			return;
		}
		try {
			hold.release(unlock, () -> !lock.isHeldByCurrentThread());
		}
		finally {
			if (!lock.isHeldByCurrentThread()) {
				this.ownedByThread.get().remove(lock.name());
			}
		}
	}

	private RecordedHold acquired(String name, LockLease view, long start, String api) {
		String id = this.incarnation + "-" + this.sequence.incrementAndGet();
		RecordedHold hold = new RecordedHold(this.history, id, name, view.fencingToken(), view);
		this.history.record("ACQ", "hold", id, "name", name, "token", view.fencingToken(), "api", api, "start", start,
				"end", History.now(), "thread", Thread.currentThread().getName());
		view.onLoss((lost) -> this.history.record("LOSS", "hold", id, "at", History.now()));
		this.latestByThread.get().put(name, hold);
		return hold;
	}

}
