package dev.distlock;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * A lock a registry holds, as seen from this JVM.
 *
 * @param name the lock name
 * @param keyValue the {@link LockName#keyValue() key value} of a keyed name, as encoded
 * in the name, or {@code null} for a name given whole
 * @param key the Redis key
 * @param fencingToken the fencing token of the hold
 * @param heldFor how long it has been held
 * @param remainingTtl how long the lease is known to last without renewal
 * @param owner the owning thread's name, or {@code lease} for an owner-free lease
 * @param holdKind how it is held: the lock (or the write side of a read/write lock), a
 * reader's share of a read/write lock, or one permit of a semaphore
 * @since 0.1.0
 */
public record HeldLock(String name, @Nullable String keyValue, String key, long fencingToken, Duration heldFor,
		Duration remainingTtl, String owner, HoldKind holdKind) {

	/**
	 * Return how it is held, as the Actuator endpoint shows it: {@code exclusive} (a
	 * lock, or the write side of a read/write lock), {@code shared} (a reader's share of
	 * a read/write lock) or {@code permit} (one permit of a semaphore).
	 * @return the {@link HoldKind#label() label} of the hold's kind
	 */
	public String kind() {
		return this.holdKind.label();
	}

}
