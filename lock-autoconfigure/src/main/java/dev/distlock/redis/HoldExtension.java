package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.DistributedLockException;
import dev.distlock.LockLostException;
import dev.distlock.redis.renewal.LeaseTerms;

import org.springframework.util.Assert;

/**
 * Extends a hold on demand: makes it valid for a new lease from now with one call of the
 * renew script of its kind, which refuses a hold whose lease Redis finds over, as a
 * renewal does. An extension never shortens a hold, in Redis or in this JVM: a hold with
 * more time left keeps it. A watchdog hold is renewed with the new lease from then on if
 * it is longer than its own. The fixed lease of a hold is not watched while it is
 * extended, so that it is not found run out while the extension may still reach Redis in
 * time, and is watched until its new end afterwards. Extensions of one hold run one at a
 * time.
 */
final class HoldExtension {

	private final RedisLockCommands commands;

	private final ActiveHolds active;

	HoldExtension(RedisLockCommands commands, ActiveHolds active) {
		this.commands = commands;
		this.active = active;
	}

	/**
	 * Extend a hold to the given lease from now.
	 * @param leaseTime the new lease, at least 1 ms
	 * @throws LockLostException if the hold was released, handed over, lost, or past its
	 * lease, or if Redis no longer had it (then it is reported lost)
	 * @throws DistributedLockException if Redis did not answer; the hold is valid as long
	 * as before
	 */
	void extend(RedisHold hold, Duration leaseTime) {
		Assert.notNull(leaseTime, "'leaseTime' must not be null");
		Assert.isTrue(leaseTime.toMillis() > 0,
				() -> "Lease time of lock '" + hold.id.name + "' must be at least 1 ms, but was given " + leaseTime);
		LeaseTerms terms = new LeaseTerms(leaseTime.toMillis(), hold.terms().delayMillis());
		hold.extending.lock();
		try {
			if (!hold.isValid() || !this.active.renewal().pauseExpiry(hold)) {
				throw notHeld(hold);
			}
			try {
				extendInRedis(hold, terms);
			}
			finally {
				this.active.renewal().resumeExpiry(hold);
			}
		}
		finally {
			hold.extending.unlock();
		}
	}

	private void extendInRedis(RedisHold hold, LeaseTerms terms) {
		long sentNanos = System.nanoTime();
		boolean extended = this.commands
			.await(this.commands.extend(hold.kind, hold.id, hold.token, terms),
					"extend the lease of lock '" + hold.id.name + "'")
			.get(0) == 1L;
		if (!extended) {
			this.active.lost(hold, "its extension found it expired or held by another owner");
			throw notHeld(hold);
		}
		hold.lengthenLease(terms);
		hold.extend(sentNanos, terms);
		if (hold.state() != RedisHold.State.HELD) {
			throw notHeld(hold);
		}
	}

	private static LockLostException notHeld(RedisHold hold) {
		return new LockLostException(hold.id.name.value(), hold.fencingToken,
				"Lock '" + hold.id.name + "' (fencing token " + hold.fencingToken
						+ ") cannot be extended: it was released, lost, or not renewed within its lease");
	}

}
