package dev.distlock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.core.annotation.AliasFor;

/**
 * Runs the annotated method holding one permit of a distributed semaphore on Redis, so
 * that at most {@link #limit()} calls run at once across every instance of the
 * application: Spring Framework's {@code @ConcurrencyLimit}, cluster-wide.
 *
 * <p>
 * A call takes one permit of {@link LockRegistry#semaphore(String, int) the semaphore} of
 * the name (with a key, of the name and the key's value) before the method runs, waiting
 * at most {@link #waitTime()}, and gives it back when the method returns or throws.
 * Permits are renewed by the watchdog while the method runs, fenced, and come back after
 * their lease when their holder dies; {@link LockContext#currentLease()} is the call's
 * permit. A permit belongs to no thread: a nested call of a limited method takes a permit
 * of its own. Methods returning {@code CompletionStage} hold the permit until their
 * result completes; methods returning a reactive type hold one per subscription, as
 * {@link DistributedLock} methods hold their locks.
 *
 * <p>
 * The interceptor runs just outside the one of {@link DistributedLock}: a method that
 * carries both takes its permit first, then its lock, and both outside
 * {@code @Transactional}. The limit and a lock of one name would be the same Redis keys,
 * so a name used by a {@link DistributedLock} fails the startup.
 *
 * <p>
 * Every annotated method is checked when the application starts: a bad expression, limit,
 * duration or combination fails the startup with a report naming the method and the
 * attribute. Usable as a meta-annotation on an application's own annotations, whose
 * attributes may override these through {@link AliasFor}.
 *
 * @since 0.1.0
 * @see DistributedSemaphore
 * @see LockRegistry#semaphore(String, int)
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface DistributedConcurrencyLimit {

	/**
	 * The semaphore's name, a literal in which {@code ${...}} placeholders are resolved.
	 * It must not contain {@code !}, and a {@link DistributedLock} of any method must not
	 * use it too.
	 * <p>
	 * The default is {@code SimpleClassName.methodName}.
	 * @return the semaphore's name
	 */
	String name() default "";

	/**
	 * SpEL expression over the call whose value is appended to the name
	 * ({@code name:value}), as for {@link DistributedLock#key()}: each value has a
	 * semaphore of its own, with the same limit. A collection or array value takes a
	 * permit of the semaphore of every element, in one global order.
	 * <p>
	 * The default is empty: one semaphore for the name.
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * How many calls may run at once across all instances: a positive whole number such
	 * as {@code 2}, or a {@code ${...}} placeholder that resolves to one.
	 * @return the limit
	 */
	String limit();

	/**
	 * How long to wait for a permit: duration text such as {@code 500ms}, {@code 5s} or
	 * {@code PT5S}, or a {@code ${...}} placeholder.
	 * <p>
	 * The default is {@code distlock.wait-time}.
	 * @return the wait time
	 */
	String waitTime() default "";

	/**
	 * What to do when no permit is taken in time or Redis fails, as for
	 * {@link DistributedLock#onFailure()}: {@code SKIP} returns the same empty results.
	 * <p>
	 * The default is {@link LockFailureAction#DEFAULT}: {@code distlock.on-failure}.
	 * @return the failure action
	 */
	LockFailureAction onFailure() default LockFailureAction.DEFAULT;

}
