package dev.distlock.observation;

import dev.distlock.observation.LockObservationDocumentation.HighCardinalityKeyNames;
import dev.distlock.observation.LockObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.ObservationConvention;

/**
 * The keys both observations of a lock have: its base name and, once known, the result as
 * low-cardinality keys; its key value and the hold's fencing token as high-cardinality
 * ones. The contextual name, which spans are named after, is the observation's name
 * followed by the lock's base name.
 *
 * @param <C> the context of the observation
 */
abstract class DefaultLockObservationConvention<C extends LockObservationContext> implements ObservationConvention<C> {

	private final String name;

	DefaultLockObservationConvention(String name) {
		this.name = name;
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public String getContextualName(C context) {
		return this.name + " " + context.getLockName().base();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(C context) {
		KeyValues values = KeyValues.of(LowCardinalityKeyNames.NAME.withValue(context.getLockName().base()));
		LockObservationResult result = context.getResult();
		return (result != null) ? values.and(LowCardinalityKeyNames.RESULT.withValue(result.value())) : values;
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(C context) {
		KeyValues values = KeyValues.empty();
		String keyValue = context.getKeyValue();
		if (keyValue != null) {
			values = values.and(HighCardinalityKeyNames.KEY.withValue(keyValue));
		}
		long fencingToken = context.getFencingToken();
		if (fencingToken > 0) {
			values = values.and(HighCardinalityKeyNames.FENCING_TOKEN.withValue(Long.toString(fencingToken)));
		}
		return values;
	}

}
