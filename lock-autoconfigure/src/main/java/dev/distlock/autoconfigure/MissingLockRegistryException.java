package dev.distlock.autoconfigure;

import java.util.List;

import dev.distlock.LockRegistry;

/**
 * Thrown at startup when beans have {@link dev.distlock.DistributedLock},
 * {@link dev.distlock.DistributedConcurrencyLimit} or {@link dev.distlock.LeaderOnly}
 * methods but no {@link LockRegistry} bean exists to run them with, so that they do not
 * run unlocked, or on every instance, unnoticed. Reported by a failure analyzer.
 *
 * @since 0.1.0
 */
public class MissingLockRegistryException extends IllegalStateException {

	private final List<String> methods;

	/**
	 * Create a new exception.
	 * @param methods the annotated methods, at least one, each with its bean as messages
	 * name them, such as {@code OrderService.pay(long) of bean 'orderService'}
	 */
	public MissingLockRegistryException(List<String> methods) {
		super("No LockRegistry bean exists to run the @DistributedLock, @DistributedConcurrencyLimit and @LeaderOnly methods "
				+ String.join(", ", methods));
		this.methods = List.copyOf(methods);
	}

	/**
	 * Return the annotated methods that would run unlocked.
	 * @return the methods, each with its bean, bean by bean
	 */
	public List<String> getMethods() {
		return this.methods;
	}

}
