package dev.distlock.aop;

import dev.distlock.LockRegistry;

/**
 * Runs {@link dev.distlock.DistributedLock} methods while holding their locks: the lock
 * of each name or, with {@code mode = SHARED}, the read side of its read/write lock.
 *
 * @since 0.1.0
 * @see DistributedLockAdvisor
 */
public class DistributedLockInterceptor extends LockingInterceptor {

	/**
	 * Create an interceptor.
	 * @param registry takes the locks
	 * @param specs resolves each method's annotation
	 * @param names evaluates each call's lock names
	 * @param lostLockPolicy what to do when a lock was lost while a method ran
	 */
	public DistributedLockInterceptor(LockRegistry registry, LockSpecResolver specs, LockNames names,
			LostLockPolicy lostLockPolicy) {
		super(LockingAnnotation.DISTRIBUTED_LOCK, registry, specs, names, lostLockPolicy);
	}

}
