package dev.distlock.test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.distlock.LockLease;
import dev.distlock.LockLostException;

import org.springframework.util.Assert;

/**
 * A lease view of an {@link InMemoryHold}, whose first release runs a given action: the
 * registry's release for an owner-free lease, an unlock for a thread-owned lock's hold.
 */
final class InMemoryLease implements LockLease {

	private final InMemoryHold hold;

	private final Runnable releaseAction;

	private final AtomicBoolean released = new AtomicBoolean();

	InMemoryLease(InMemoryHold hold, Runnable releaseAction) {
		this.hold = hold;
		this.releaseAction = releaseAction;
	}

	@Override
	public String name() {
		return this.hold.name.value();
	}

	@Override
	public long fencingToken() {
		return this.hold.fencingToken;
	}

	@Override
	public boolean isValid() {
		return this.hold.isValid();
	}

	@Override
	public Duration remainingLease() {
		return this.hold.remainingLease(System.nanoTime());
	}

	@Override
	public void onLoss(Consumer<? super LockLostException> action) {
		this.hold.onLoss(action);
	}

	@Override
	public void extend(Duration leaseTime) {
		Assert.isTrue(leaseTime.toMillis() > 0,
				() -> "Lease time of lock '" + this.hold.name + "' must be at least 1 ms, but was given " + leaseTime);
		if (!this.hold.slot.extend(this.hold, leaseTime)) {
			throw this.hold.lostException("Lock '" + this.hold.name + "' (fencing token " + this.hold.fencingToken
					+ ") cannot be extended: it was released, lost, or not renewed within its lease");
		}
	}

	@Override
	public Instant acquiredAt() {
		return this.hold.acquiredAt;
	}

	@Override
	public void release() {
		if (this.released.compareAndSet(false, true)) {
			try {
				this.releaseAction.run();
			}
			catch (IllegalMonitorStateException ex) {
				// Refused on a thread that does not own the hold: its owner still may
				this.released.set(false);
				throw ex;
			}
		}
	}

}
