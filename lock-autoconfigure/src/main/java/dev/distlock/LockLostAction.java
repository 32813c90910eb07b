package dev.distlock;

/**
 * What a {@link DistributedLock @DistributedLock} method does when its lock was lost
 * while it ran ({@code distlock.on-lost}). A {@link LockLostEvent} is published either
 * way.
 *
 * @since 0.1.0
 */
public enum LockLostAction {

	/**
	 * Throw {@link LockLostException} after the method, instead of its result.
	 */
	THROW,

	/**
	 * Log a warning and return the method's result.
	 */
	LOG

}
