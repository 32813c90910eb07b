package dev.distlock.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * {@link ObservationConvention} of the {@code distlock.hold} observation. Define a bean
 * of this type to replace {@link DefaultLockHoldObservationConvention}, or extend it.
 *
 * @since 0.1.0
 */
public interface LockHoldObservationConvention extends ObservationConvention<LockHoldContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LockHoldContext;
	}

}
