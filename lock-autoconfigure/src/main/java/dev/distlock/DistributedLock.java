package dev.distlock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.core.annotation.AliasFor;

/**
 * Runs the annotated method while holding a distributed lock on Redis.
 *
 * <p>
 * The lock is acquired before the method runs ({@code SET NX PX} in one script, waiting
 * at most {@link #waitTime()}), kept alive by the watchdog while it runs unless
 * {@link #leaseTime()} fixes its lease, and released with a token-checked script when the
 * method returns or throws. It is owned by the calling thread and reentrant, like
 * {@link LockRegistry#obtain(String)}: a nested call taking the same lock on the same
 * thread re-enters without a Redis round trip. Methods returning {@code CompletionStage}
 * hold the lock until their result completes, fails or is cancelled; methods returning a
 * reactive type that Spring's {@code ReactiveAdapterRegistry} adapts ({@code Mono},
 * {@code Flux}, RxJava, ...) take it for each subscription, until that subscription
 * completes, fails or is cancelled.
 *
 * <p>
 * The locking interceptor is ordered by {@code distlock.order}, outside
 * {@code @Transactional}: the lock is released after the commit or rollback, and when the
 * method joins a transaction its caller started, after that transaction completes.
 *
 * <p>
 * Every annotated method is checked when the application starts: a bad expression,
 * duration or combination fails the startup with a report naming the method and the
 * attribute. Usable as a meta-annotation on an application's own annotations, whose
 * attributes may override these through {@link AliasFor}.
 *
 * @since 0.1.0
 * @see LockRegistry
 * @see LockContext
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface DistributedLock {

	/**
	 * Alias for {@link #name()}.
	 * @return the lock name
	 */
	@AliasFor("name")
	String value() default "";

	/**
	 * The lock's name, a literal in which {@code ${...}} placeholders are resolved. It
	 * must not contain {@code !}, which distlock keeps for the keys of a lock's helpers
	 * such as its fencing key; a name that does fails the startup.
	 * <p>
	 * The default is {@code SimpleClassName.methodName}.
	 * @return the lock name
	 */
	@AliasFor("value")
	String name() default "";

	/**
	 * SpEL expression over the call whose value is appended to the name
	 * ({@code name:value}), as in {@code @Cacheable}: {@code #paramName}, {@code #p0} or
	 * {@code #a0}, {@code #root.method}, {@code #root.target}, {@code #root.args}, and
	 * bean references {@code @bean}. A collection or array value locks every element,
	 * taken in one global order so that two calls never deadlock. A value that is
	 * {@code null} or blank fails the call with {@link LockKeyException}.
	 * <p>
	 * The default is empty: one lock for the name.
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * How long to wait for the lock: duration text such as {@code 500ms}, {@code 5s} or
	 * {@code PT5S}, or a {@code ${...}} placeholder.
	 * <p>
	 * The default is {@code distlock.wait-time}.
	 * @return the wait time
	 */
	String waitTime() default "";

	/**
	 * Fixed lease: the lock expires this long after it was acquired and is not renewed. A
	 * method that runs longer has lost its lock ({@code distlock.on-lost}).
	 * <p>
	 * The default is empty: watchdog mode, renewed while the method runs.
	 * @return the lease time
	 */
	String leaseTime() default "";

	/**
	 * How long to keep the lock after acquisition even if the method returns sooner, so
	 * that a scheduled job triggered on several nodes runs once.
	 * <p>
	 * The default is empty: released when the method returns.
	 * @return the minimum hold time
	 */
	String minHoldTime() default "";

	/**
	 * What to do when the lock is not acquired in time or Redis fails.
	 * <p>
	 * The default is {@link LockFailureAction#DEFAULT}: {@code distlock.on-failure}.
	 * @return the failure action
	 */
	LockFailureAction onFailure() default LockFailureAction.DEFAULT;

	/**
	 * Which side of the lock of the name to take. {@link LockMode#EXCLUSIVE} is the lock
	 * itself, which is also the write side of the read/write lock of the name;
	 * {@link LockMode#SHARED} is the read side, shared with other readers and excluded by
	 * a writer ({@link LockRegistry#readWriteLock(String)}). A shared method must return
	 * its result synchronously (the read side is owned by the calling thread) and cannot
	 * fix its lease or minimum hold time; the startup fails otherwise.
	 * <p>
	 * The default is {@link LockMode#EXCLUSIVE}.
	 * @return the lock mode
	 * @since 0.1.0
	 */
	LockMode mode() default LockMode.EXCLUSIVE;

}
