package dev.distlock.autoconfigure;

import java.util.List;
import java.util.stream.Collectors;

import dev.distlock.LockRegistry;
import dev.distlock.aop.LockedMethod;

/**
 * Thrown at startup when beans have {@link dev.distlock.DistributedLock},
 * {@link dev.distlock.DistributedConcurrencyLimit} or {@link dev.distlock.LeaderOnly}
 * methods but no {@link LockRegistry} bean exists to run them with, so that they do not
 * run unlocked, or on every instance, unnoticed. Reported by a failure analyzer.
 *
 * @since 0.1.0
 */
public class MissingLockRegistryException extends IllegalStateException {

	private final List<LockedMethod> methods;

	/**
	 * Create a new exception.
	 * @param methods the annotated methods, at least one
	 */
	public MissingLockRegistryException(List<LockedMethod> methods) {
		super("No LockRegistry bean exists to run the @DistributedLock, @DistributedConcurrencyLimit and @LeaderOnly methods "
				+ methods.stream().map(LockedMethod::toString).collect(Collectors.joining(", ")));
		this.methods = List.copyOf(methods);
	}

	/**
	 * Return the annotated methods that would run unlocked.
	 * @return the methods, bean by bean
	 */
	public List<LockedMethod> getMethods() {
		return this.methods;
	}

}
