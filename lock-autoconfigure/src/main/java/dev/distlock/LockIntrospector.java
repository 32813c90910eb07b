package dev.distlock;

import java.time.Duration;
import java.util.List;

/**
 * What operations tools may ask a lock registry: the locks it holds, the leaderships it
 * campaigns for, whether its store answers, and whether its leases are renewed on time.
 * The Actuator endpoint and health indicator depend on this interface only, so a registry
 * of any kind that implements it gets them.
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

}
