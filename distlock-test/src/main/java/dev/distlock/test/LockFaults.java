package dev.distlock.test;

import java.util.OptionalLong;

import dev.distlock.LockRegistry;
import dev.distlock.redis.RedisLockRegistry;

/**
 * Provokes in a test what code that holds distributed locks must survive: a lock lost
 * while held, renewals that stop. Each works on the {@link InMemoryLockRegistry}; the
 * loss of a lock also on the {@link RedisLockRegistry}, against a real Redis.
 *
 * <pre class="code">
 * LockFaults.expire(registry, "nightly-report");
 * await().until(() -&gt; !lease.isValid());
 * assertThatExceptionOfType(StaleFencingTokenException.class).isThrownBy(() -&gt; fence.write(...));
 * </pre>
 *
 * @since 0.1.0
 */
public final class LockFaults {

	private LockFaults() {
	}

	/**
	 * Make the lock of the given name lost now, whoever holds it, as if its lease ran out
	 * while its holder did not notice: the name is free at once, the holder's lease is no
	 * longer valid, its loss actions run and a {@link dev.distlock.LockLostEvent} is
	 * published, and its release throws {@link dev.distlock.LockLostException}. On the
	 * in-JVM registry this covers the name's read shares and semaphore permits too, and
	 * the holder's registry finds out at once. On Redis the lock's key is force-released,
	 * and the given registry checks its own holds at once; another registry holding the
	 * lock finds out at its next renewal, within a third of its lease.
	 * @param registry the registry the lock is held through
	 * @param name the lock's name
	 * @return the fencing token of the last hold of the lock, or empty if none held it
	 * @throws IllegalArgumentException for a registry of another kind
	 */
	public static OptionalLong expire(LockRegistry registry, String name) {
		if (registry instanceof InMemoryLockRegistry inMemory) {
			return inMemory.forceRelease(name);
		}
		if (registry instanceof RedisLockRegistry redis) {
			OptionalLong lastToken = redis.forceRelease(name);
			redis.renewLeases();
			return lastToken;
		}
		throw unsupported(registry, "expire a lock");
	}

	/**
	 * Stop renewing the leases held through the given registry, as when its watchdog
	 * cannot reach Redis: each hold runs out a lease from now and is then reported lost,
	 * unless {@link #resumeRenewals(LockRegistry)} comes first.
	 * @param registry an {@link InMemoryLockRegistry}
	 * @throws IllegalArgumentException for a registry of another kind
	 * @see InMemoryLockRegistry#pauseRenewals()
	 */
	public static void pauseRenewals(LockRegistry registry) {
		inMemory(registry, "pause renewals").pauseRenewals();
	}

	/**
	 * Renew the leases held through the given registry again.
	 * @param registry an {@link InMemoryLockRegistry}
	 * @throws IllegalArgumentException for a registry of another kind
	 * @see InMemoryLockRegistry#resumeRenewals()
	 */
	public static void resumeRenewals(LockRegistry registry) {
		inMemory(registry, "resume renewals").resumeRenewals();
	}

	private static InMemoryLockRegistry inMemory(LockRegistry registry, String what) {
		if (registry instanceof InMemoryLockRegistry inMemory) {
			return inMemory;
		}
		throw unsupported(registry, what);
	}

	private static IllegalArgumentException unsupported(LockRegistry registry, String what) {
		return new IllegalArgumentException("Cannot " + what + " of a " + registry.getClass().getName()
				+ ": LockFaults works on an InMemoryLockRegistry (distlock.store=in-memory)"
				+ ((registry instanceof RedisLockRegistry) ? "" : " or a RedisLockRegistry")
				+ "; on Redis, a lease runs out unrenewed when the holder's JVM is paused");
	}

}
