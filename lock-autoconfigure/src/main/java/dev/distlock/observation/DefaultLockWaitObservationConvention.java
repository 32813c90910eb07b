package dev.distlock.observation;

/**
 * The default {@link LockWaitObservationConvention}: the observation
 * {@code distlock.wait}, with the lock's base name ({@code name}) and how the wait ended
 * ({@code result}: {@code acquired}, {@code failed} or {@code error}) as low-cardinality
 * keys, and its key value ({@code key}) and the acquired hold's fencing token
 * ({@code fencing.token}) as high-cardinality ones. Spans are named
 * {@code distlock.wait <name>}.
 *
 * @since 0.1.0
 */
public class DefaultLockWaitObservationConvention extends DefaultLockObservationConvention<LockWaitContext>
		implements LockWaitObservationConvention {

	/**
	 * Create the default convention of {@code distlock.wait}.
	 */
	public DefaultLockWaitObservationConvention() {
		super("distlock.wait");
	}

}
