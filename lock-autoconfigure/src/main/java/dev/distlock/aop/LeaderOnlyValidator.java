package dev.distlock.aop;

import java.util.ArrayList;
import java.util.List;

import dev.distlock.LeaderOnly;
import dev.distlock.aop.InvalidLockAnnotationException.Problem;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Checks every {@link LeaderOnly} method of every bean once the singletons exist, so that
 * a method naming a leadership the instance does not campaign for, or returning what a
 * skipped call cannot, fails the startup rather than being skipped on every instance; so
 * does a {@link dev.distlock.DistributedLock} on the same method that takes the lock the
 * leadership holds for its whole term, which the leader would never get. Warns once about
 * annotated methods that a proxy cannot intercept (private, final or static), and, when
 * distlock is disabled, names the leader-only methods that are skipped on every call.
 */
final class LeaderOnlyValidator {

	private static final Log logger = LogFactory.getLog(LeaderOnlyValidator.class);

	private final LeaderOnlySpecResolver specs;

	private final @Nullable LockSpecResolver lockSpecs;

	/**
	 * Create a validator.
	 * @param specs resolves and checks annotations
	 * @param lockSpecs resolves the {@code @DistributedLock} of a {@code @LeaderOnly}
	 * method, or {@code null} when distlock is disabled: nothing is locked, and every
	 * leader-only method is skipped, which the check logs at WARN
	 */
	LeaderOnlyValidator(LeaderOnlySpecResolver specs, @Nullable LockSpecResolver lockSpecs) {
		this.specs = specs;
		this.lockSpecs = lockSpecs;
	}

	/**
	 * Check the annotated methods of the beans.
	 * @param methods the annotated methods
	 * @throws InvalidLockAnnotationException if an annotation cannot work as written
	 */
	void check(List<LockedMethod> methods) {
		AnnotatedMethodCheck check = new AnnotatedMethodCheck();
		List<LockedMethod> leaderOnly = new ArrayList<>();
		for (LockedMethod annotated : methods) {
			if (LockedMethod.isLeaderOnly(annotated.method())) {
				leaderOnly.add(annotated);
				check.check(annotated, "@" + LeaderOnly.class.getSimpleName(), () -> {
					LeaderOnlySpec spec = this.specs.resolve(annotated.method(), annotated.beanType());
					checkLockOfTheTerm(annotated, spec, check);
				});
			}
		}
		check.throwIfAny();
		if (this.lockSpecs == null && !leaderOnly.isEmpty()) {
			logger.warn("distlock.enabled=false: this instance leads no leadership, so every call of these @"
					+ LeaderOnly.class.getSimpleName() + " methods is skipped: " + leaderOnly
					+ ". Remove distlock.enabled=false to run them on the leader only.");
		}
	}

	/**
	 * Record a problem if the method's {@code @DistributedLock} takes the lock of its
	 * leadership, with no key: the leader holds it for the whole term, so the leader
	 * never gets it, and the standbys skip the method.
	 */
	private void checkLockOfTheTerm(LockedMethod annotated, LeaderOnlySpec spec, AnnotatedMethodCheck check) {
		LockingAnnotation lock = LockingAnnotation.DISTRIBUTED_LOCK;
		LockSpecResolver resolver = this.lockSpecs;
		if (resolver == null || !lock.isPresentOn(annotated.method())) {
			return;
		}
		LockSpec lockSpec;
		try {
			lockSpec = resolver.resolve(lock, annotated.method(), annotated.beanType());
		}
		catch (InvalidLockAnnotationException ex) {
			// Reported by the check of the lock annotations
			return;
		}
		if (lockSpec.key() == null && lockSpec.name().equals(spec.name())) {
			check.add(new Problem(annotated.beanName(), lock.displayName(), spec.description(), "name",
					"'" + spec.name() + "' is the lock that the leadership '" + spec.name()
							+ "' holds for its whole term, so the leader never gets it and the method never runs"
							+ " (the other instances skip it as standbys)",
					"give the lock a name of its own, such as \"" + spec.name()
							+ "-run\", to keep two runs from overlapping when the leadership changes hands, or"
							+ " remove @DistributedLock"));
		}
	}

}
