package dev.distlock;

/**
 * What a {@link DistributedLock} method does when its lock is not acquired within the
 * wait time.
 *
 * @author distlock
 * @since 0.1.0
 */
public enum LockFailureAction {

	/**
	 * Throw {@link LockAcquisitionException}.
	 */
	THROW,

	/**
	 * Do not run the method; return nothing for {@code void}, {@code Optional.empty()}, a
	 * completed {@code CompletableFuture} of {@code null}, otherwise {@code null}. A
	 * reactive result, such as a {@code Mono} or {@code Flux}, completes empty.
	 */
	SKIP,

	/**
	 * Do what {@code distlock.on-failure} says.
	 */
	DEFAULT

}
