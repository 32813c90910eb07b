package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.redis.renewal.LeaseTerms;

import org.springframework.util.Assert;

/**
 * A {@link LockLease} of one hold of a {@link RedisLockRegistry}: an owner-free lease, or
 * the current hold of a thread-owned lock. The first {@link #release()} runs the given
 * release action; later ones do nothing.
 *
 * <p>
 * {@link #extend(Duration)} makes the hold valid for a new lease from now with one call
 * of the renew script of its kind, which refuses a hold whose lease Redis finds over, as
 * a renewal does. An extension never shortens a hold, in Redis or in this JVM: a hold
 * with more time left keeps it. A watchdog hold is renewed with the new lease from then
 * on if it is longer than its own. The fixed lease of a hold is not watched while it is
 * extended, so that it is not found run out while the extension may still reach Redis in
 * time, and is watched until its new end afterwards. Extensions of one hold run one at a
 * time.
 */
final class RedisLockLease implements LockLease {

	final RedisHold hold;

	private final Runnable releaseAction;

	private final RedisLockCommands commands;

	private final ActiveHolds active;

	private final AtomicBoolean released = new AtomicBoolean();

	RedisLockLease(RedisHold hold, Runnable releaseAction, RedisLockCommands commands, ActiveHolds active) {
		this.hold = hold;
		this.releaseAction = releaseAction;
		this.commands = commands;
		this.active = active;
	}

	@Override
	public String name() {
		return this.hold.id.name.value();
	}

	@Override
	public long fencingToken() {
		return this.hold.fencingToken;
	}

	@Override
	public Duration remainingLease() {
		return Duration.ofNanos(Math.max(0, this.hold.validUntilNanos() - System.nanoTime()));
	}

	@Override
	public Instant acquiredAt() {
		return this.hold.acquiredAt;
	}

	@Override
	public boolean isValid() {
		return this.hold.isValid();
	}

	@Override
	public void onLoss(Consumer<? super LockLostException> action) {
		this.hold.lossActions.add(action);
	}

	/**
	 * Extend the hold to the given lease from now.
	 * @param leaseTime the new lease, at least 1 ms
	 * @throws LockLostException if the hold was released, handed over, lost, or past its
	 * lease, or if Redis no longer had it (then it is reported lost)
	 * @throws dev.distlock.DistributedLockException if Redis did not answer; the hold is
	 * valid as long as before
	 */
	@Override
	public void extend(Duration leaseTime) {
		Assert.notNull(leaseTime, "'leaseTime' must not be null");
		Assert.isTrue(leaseTime.toMillis() > 0, () -> "Lease time of lock '" + this.hold.id.name
				+ "' must be at least 1 ms, but was given " + leaseTime);
		LeaseTerms terms = new LeaseTerms(leaseTime.toMillis(), this.hold.terms().delayMillis());
		this.hold.extending.lock();
		try {
			// Read before the hold is found valid: a lease that ran out is never extended
			long sentNanos = System.nanoTime();
			if (!this.hold.isValid() || !this.active.renewal().pauseExpiry(this.hold)) {
				throw notExtended();
			}
			try {
				extendInRedis(terms, sentNanos);
			}
			finally {
				this.active.renewal().resumeExpiry(this.hold);
			}
		}
		finally {
			this.hold.extending.unlock();
		}
	}

	private void extendInRedis(LeaseTerms terms, long sentNanos) {
		RedisHold hold = this.hold;
		boolean extended = this.commands
			.await(this.commands.extend(hold.kind, hold.id, hold.token, terms),
					"extend the lease of lock '" + hold.id.name + "'")
			.get(0) == 1L;
		if (!extended) {
			this.active.lost(hold, "its extension found it expired or held by another owner");
			throw notExtended();
		}
		hold.lengthenLease(terms);
		hold.extend(sentNanos, terms);
		if (hold.state() != RedisHold.State.HELD) {
			throw notExtended();
		}
	}

	private LockLostException notExtended() {
		return new LockLostException(name(), fencingToken(), "Lock '" + this.hold.id.name + "' (fencing token "
				+ fencingToken() + ") cannot be extended: it was released, lost, or not renewed within its lease");
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

	@Override
	public String toString() {
		return "LockLease '" + name() + "' (fencing token " + fencingToken() + ")";
	}

}
