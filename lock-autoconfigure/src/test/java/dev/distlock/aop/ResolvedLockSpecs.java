package dev.distlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.Assert;

/**
 * What the interception of an application context resolved for the locking annotation of
 * a method, for the tests of the auto-configuration, which cannot see the package's own
 * types.
 *
 * @param name the lock or semaphore name
 * @param keySource the key expression as written
 * @param waitTime how long a call waits
 * @param skipOnFailure whether a call that does not get its lock is skipped
 * @param leaseTime the fixed lease, or {@code null} for a watchdog lease
 * @param permits how many permits the semaphore gives, or {@code null} for a lock
 */
public record ResolvedLockSpecs(String name, String keySource, Duration waitTime, boolean skipOnFailure,
		@Nullable Duration leaseTime, @Nullable Integer permits) {

	/**
	 * Return what the context's interception resolved for the {@code @DistributedLock} of
	 * a method.
	 * @param beanFactory the context
	 * @param method the method
	 * @param targetClass the class it is called on
	 * @return the resolved annotation
	 */
	public static ResolvedLockSpecs ofLock(BeanFactory beanFactory, Method method, Class<?> targetClass) {
		return of(beanFactory, LockingAnnotation.DISTRIBUTED_LOCK, method, targetClass);
	}

	/**
	 * Return what the context's interception resolved for the
	 * {@code @DistributedConcurrencyLimit} of a method.
	 * @param beanFactory the context
	 * @param method the method
	 * @param targetClass the class it is called on
	 * @return the resolved annotation
	 */
	public static ResolvedLockSpecs ofConcurrencyLimit(BeanFactory beanFactory, Method method, Class<?> targetClass) {
		return of(beanFactory, LockingAnnotation.CONCURRENCY_LIMIT, method, targetClass);
	}

	private static ResolvedLockSpecs of(BeanFactory beanFactory, LockingAnnotation annotation, Method method,
			Class<?> targetClass) {
		LockSpecResolver specs = beanFactory.getBean(DistLockInterception.class).lockSpecs();
		Assert.state(specs != null, "distlock is turned off");
		LockSpec spec = specs.resolve(annotation, method, targetClass);
		Integer permits = (spec.target() instanceof LockTarget.Permit permit) ? permit.limit() : null;
		return new ResolvedLockSpecs(spec.name(), spec.keySource(), spec.waitTime(), spec.skipOnFailure(),
				spec.leaseOptions().leaseTime(), permits);
	}

}
