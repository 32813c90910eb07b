package dev.distlock.test;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import dev.distlock.FencedLock;
import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import org.jspecify.annotations.Nullable;

/**
 * A thread-owned, reentrant view of one side of a name of an
 * {@link InMemoryLockRegistry}: its lock (the write side of its read/write lock) or its
 * read side. Handles of the same registry, name, side and options are equal.
 */
final class InMemoryFencedLock implements FencedLock {

	private final InMemoryLockRegistry registry;

	private final LockName name;

	private final HoldKind side;

	private final LeaseOptions options;

	InMemoryFencedLock(InMemoryLockRegistry registry, LockName name, HoldKind side, LeaseOptions options) {
		this.registry = registry;
		this.name = name;
		this.side = side;
		this.options = options;
	}

	@Override
	public String name() {
		return this.name.value();
	}

	@Override
	public void lock() {
		boolean interrupted = false;
		while (true) {
			try {
				if (lock(Duration.ofNanos(Long.MAX_VALUE))) {
					break;
				}
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		lock(Duration.ofNanos(Long.MAX_VALUE));
	}

	@Override
	public boolean tryLock() {
		return tryLock(Duration.ZERO);
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException();
		}
		return lock(Duration.ofNanos(unit.toNanos(time)));
	}

	@Override
	public boolean tryLock(Duration waitTime) {
		try {
			return lock(waitTime);
		}
		catch (InterruptedException ex) {
			throw InMemoryLockRegistry.interrupted("Interrupted while waiting for lock '" + this.name + "'", this.name,
					ex);
		}
	}

	@Override
	public void unlock() {
		InMemoryHold hold = holds().leave(this.name);
		if (hold != null) {
			this.registry.release(hold);
		}
	}

	@Override
	public boolean isHeldByCurrentThread() {
		return holds().isHeld(this.name);
	}

	@Override
	public int getHoldCount() {
		InMemoryHold hold = holds().find(this.name);
		return (hold != null && hold.isValid()) ? hold.reentries : 0;
	}

	@Override
	public long fencingToken() {
		return holds().held(this.name).fencingToken;
	}

	@Override
	public LockLease currentHold() {
		return new InMemoryLease(holds().get(this.name), this::unlock);
	}

	/**
	 * Take this side for the current thread, or reenter its hold. A writer takes its read
	 * share at once while its write hold is held; a reader cannot take the write side,
	 * which would wait for its own share.
	 */
	private boolean lock(Duration waitTime) throws InterruptedException {
		ThreadHolds holds = holds();
		if (holds.reenter(this.name)) {
			return true;
		}
		if (this.side == HoldKind.EXCLUSIVE && this.registry.owned(HoldKind.READ_SHARE).find(this.name) != null) {
			throw new IllegalMonitorStateException("Thread '" + Thread.currentThread().getName()
					+ "' holds the read lock of '" + this.name + "' and cannot take its write lock, which would "
					+ "wait for its own read share: a read lock cannot be upgraded; release it first");
		}
		InMemoryHold hold = this.registry.take(this.name, this.side, 0, waitTime, this.options);
		if (hold == null) {
			return false;
		}
		holds.add(hold);
		return true;
	}

	private ThreadHolds holds() {
		return this.registry.owned(this.side);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof InMemoryFencedLock that && this.registry == that.registry
				&& this.name.equals(that.name) && this.side == that.side && this.options.equals(that.options));
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.name, this.side, this.options);
	}

	@Override
	public String toString() {
		return "InMemoryFencedLock '" + this.name + "' (" + this.side.label() + ")";
	}

}
