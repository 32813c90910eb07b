package dev.distlock;

/**
 * What a {@link DistributedLock} method does when its lock is not acquired within the
 * wait time, or cannot be acquired because Redis failed; and a
 * {@link DistributedConcurrencyLimit} method when it gets no permit.
 *
 * @since 0.1.0
 */
public enum LockFailureAction {

	/**
	 * Throw {@link LockAcquisitionException}, or the {@link DistributedLockException} of
	 * the Redis failure.
	 */
	THROW,

	/**
	 * Do not run the method; return nothing for {@code void}, {@code Optional.empty()}, a
	 * completed {@code CompletableFuture} of {@code null}, otherwise {@code null}. A
	 * reactive result, such as a {@code Mono} or {@code Flux}, completes empty. A Redis
	 * failure skips too; it is logged once when it starts skipping methods and once when
	 * Redis answers again.
	 */
	SKIP,

	/**
	 * Do what {@code distlock.on-failure} says.
	 */
	DEFAULT

}
