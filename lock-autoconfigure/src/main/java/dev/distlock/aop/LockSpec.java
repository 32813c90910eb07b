package dev.distlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;

import dev.distlock.LeaseOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.Expression;

/**
 * What a {@link dev.distlock.DistributedLock} method's annotation resolves to, once per
 * method: placeholders resolved, durations parsed, the key expression parsed.
 *
 * @param method the annotated method
 * @param description the method as error messages name it, such as
 * {@code OrderService.pay(long)}
 * @param name the lock name
 * @param keySource the key expression as written, empty for none
 * @param key the parsed key expression, or {@code null} for one lock per name
 * @param waitTime how long to wait for the lock
 * @param leaseOptions fixed lease or watchdog, and minimum hold time
 * @param skipOnFailure whether to skip the method (rather than throw) when the lock is
 * not acquired
 * @param resultKind how the method delivers its result
 * @author distlock
 * @since 0.1.0
 */
public record LockSpec(Method method, String description, String name, String keySource, @Nullable Expression key,
		Duration waitTime, LeaseOptions leaseOptions, boolean skipOnFailure, ResultKind resultKind) {

}
