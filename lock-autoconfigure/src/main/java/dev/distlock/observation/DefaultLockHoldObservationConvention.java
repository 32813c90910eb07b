package dev.distlock.observation;

/**
 * The default {@link LockHoldObservationConvention}: the observation
 * {@code distlock.hold}, with the lock's base name ({@code name}) and how the hold ended
 * ({@code result}: {@code released} or {@code lost}) as low-cardinality keys, and its key
 * value ({@code key}) and the hold's fencing token ({@code fencing.token}) as
 * high-cardinality ones. Spans are named {@code distlock.hold <name>}.
 *
 * @since 0.1.0
 */
public class DefaultLockHoldObservationConvention extends DefaultLockObservationConvention<LockHoldContext>
		implements LockHoldObservationConvention {

	/**
	 * Create the default convention of {@code distlock.hold}.
	 */
	public DefaultLockHoldObservationConvention() {
		super("distlock.hold");
	}

}
