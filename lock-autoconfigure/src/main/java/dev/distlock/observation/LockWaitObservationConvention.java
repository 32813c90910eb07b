package dev.distlock.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * {@link ObservationConvention} of the {@code distlock.wait} observation. Define a bean
 * of this type to replace {@link DefaultLockWaitObservationConvention}, or extend it.
 *
 * @since 0.1.0
 */
public interface LockWaitObservationConvention extends ObservationConvention<LockWaitContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LockWaitContext;
	}

}
