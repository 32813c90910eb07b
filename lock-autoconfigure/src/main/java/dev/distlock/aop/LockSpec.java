package dev.distlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;

import dev.distlock.LeaseOptions;
import dev.distlock.LockFailureAction;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;

/**
 * What a {@link dev.distlock.DistributedLock} or
 * {@link dev.distlock.DistributedConcurrencyLimit} method's annotation resolves to, once
 * per method: placeholders resolved, durations and limit parsed, the key expression
 * parsed.
 *
 * @param method the annotated method
 * @param description the method as error messages name it, such as
 * {@code OrderService.pay(long)}
 * @param name the lock name
 * @param target what the call takes for each name: a lock, a read share or a permit
 * @param keySource the key expression as written, empty for none
 * @param key the parsed key expression, or {@code null} for one lock per name
 * @param waitTime how long to wait for the lock
 * @param leaseOptions fixed lease or watchdog, and minimum hold time
 * @param onFailure what to do when the lock is not acquired: {@code THROW} or
 * {@code SKIP}, never {@code DEFAULT}
 * @param resultKind how the method delivers its result
 */
record LockSpec(Method method, String description, String name, LockTarget target, String keySource,
		@Nullable Expression key, Duration waitTime, LeaseOptions leaseOptions, LockFailureAction onFailure,
		ResultKind resultKind) {

	/**
	 * Return whether the method is skipped, rather than failed, when its lock is not
	 * acquired.
	 * @return whether {@link #onFailure()} is {@code SKIP}
	 */
	boolean skipOnFailure() {
		return this.onFailure == LockFailureAction.SKIP;
	}

}
