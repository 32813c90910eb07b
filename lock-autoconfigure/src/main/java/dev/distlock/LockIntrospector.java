package dev.distlock;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

/**
 * What operations tools may ask a lock registry: the locks it holds, the leaderships it
 * campaigns for, whether its store answers, and whether its leases are renewed on time;
 * and, when an operator asks for it, to release a lock whoever holds it. The Actuator
 * endpoint and health indicator depend on this interface only, so a registry of any kind
 * that implements it gets them.
 *
 * @since 0.1.0
 */
public interface LockIntrospector {

	/**
	 * Return the locks held now.
	 * @return the held locks, longest held first
	 */
	List<HeldLock> heldLocks();

	/**
	 * Check that the store answers on the connection that lock commands use.
	 * @throws DistributedLockException if it does not answer within the command timeout
	 */
	void ping();

	/**
	 * Check each node of a store made of several independent nodes (Redlock), each within
	 * the command timeout.
	 * @return per node, in the order they were configured, {@code UP} or {@code DOWN}
	 * with the error; empty for a store that is one deployment
	 */
	default List<String> pingNodes() {
		return List.of();
	}

	/**
	 * Return how often leases are renewed.
	 * @return the renewal period
	 */
	Duration renewalPeriod();

	/**
	 * Return how late the last renewal round is: zero when it ran within its period,
	 * otherwise how much longer ago.
	 * @return the renewal delay
	 */
	Duration renewalDelay();

	/**
	 * Return the leaderships this registry campaigns for: started and not stopped.
	 * @return the leaderships, by name
	 */
	default List<Leadership> leaderships() {
		return List.of();
	}

	/**
	 * Release the lock of the given name whoever holds it, in any process, for an
	 * operator: its holder, which is not told, learns of the loss at its next renewal or
	 * release, and the first process waiting for the lock gets it. A lock kept after its
	 * release for a minimum hold time or a lock delay is freed too. Read shares and
	 * semaphore permits are not released.
	 * @param name the lock's name
	 * @return empty when nothing held the lock, otherwise the last fencing token issued
	 * for it (its holder's), 0 when the store no longer knows it
	 * @throws UnsupportedOperationException if this registry cannot release others' locks
	 * @throws DistributedLockException if the store cannot be reached
	 */
	default OptionalLong forceRelease(String name) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot force-release locks");
	}

}
