package dev.distlock.aop;

import dev.distlock.LockRegistry;

/**
 * Runs {@link dev.distlock.DistributedConcurrencyLimit} methods while holding a permit of
 * their semaphore, exactly as {@link DistributedLockInterceptor} holds locks: the same
 * keys, wait time, failure action, and holding until a future or reactive result
 * completes.
 *
 * @since 0.1.0
 * @see DistributedConcurrencyLimitAdvisor
 */
public class DistributedConcurrencyLimitInterceptor extends LockingInterceptor {

	/**
	 * Create an interceptor.
	 * @param registry gives the permits
	 * @param specs resolves each method's annotation
	 * @param names evaluates each call's semaphore names
	 * @param lostLockPolicy what to do when a permit was lost while a method ran
	 */
	public DistributedConcurrencyLimitInterceptor(LockRegistry registry, LockSpecResolver specs, LockNames names,
			LostLockPolicy lostLockPolicy) {
		super(LockingAnnotation.CONCURRENCY_LIMIT, registry, specs, names, lostLockPolicy);
	}

}
