package dev.distlock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs the annotated method only on the instance that leads the named {@link Leadership},
 * typically a {@code @Scheduled} job that every instance triggers. Elsewhere the call is
 * skipped, as {@code @DistributedLock(onFailure = SKIP)} skips it: it returns nothing for
 * {@code void}, {@code Optional.empty()}, a completed {@code CompletableFuture} of
 * {@code null}, otherwise {@code null}, and a reactive result completes empty, deciding
 * on each subscription.
 *
 * <p>
 * Whether this instance leads is {@link Leadership#isLeader()} when the call starts: it
 * holds the leadership's lock and its lease is valid by this JVM's clock. The method
 * holds no lock of its own, so a term may end while it runs; a resource it writes can
 * check the term's fencing token ({@link Leadership#fencingToken()}).
 *
 * <p>
 * The name must be one of {@code distlock.leader.names}, the leaderships the instance
 * campaigns for from its start: every annotated method is checked when the application
 * starts, and one naming another leadership, or returning a primitive type that a skipped
 * call could not return, fails the startup with a report naming the method. Usable as a
 * meta-annotation.
 *
 * @since 0.1.0
 * @see Leadership
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface LeaderOnly {

	/**
	 * The leadership's name, a literal in which {@code ${...}} placeholders are resolved;
	 * one of {@code distlock.leader.names}.
	 * @return the leadership's name
	 */
	String value();

}
