package dev.distlock.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of locks, their keys and their events.
 *
 * @since 0.1.0
 */
public enum LockObservationDocumentation implements ObservationDocumentation {

	/**
	 * A caller's wait for a lock, from the call to its acquisition, or to the end of its
	 * wait time, or to the failure that ended it.
	 */
	WAIT {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLockWaitObservationConvention.class;
		}

	},

	/**
	 * A hold of a lock, from its acquisition to its release, with an event for each
	 * renewal that failed and for its loss.
	 */
	HOLD {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultLockHoldObservationConvention.class;
		}

		@Override
		public Observation.Event[] getEvents() {
			return HoldEvents.values();
		}

	};

	@Override
	public KeyName[] getLowCardinalityKeyNames() {
		return LowCardinalityKeyNames.values();
	}

	@Override
	public KeyName[] getHighCardinalityKeyNames() {
		return HighCardinalityKeyNames.values();
	}

	/**
	 * Keys of few values, which metrics are tagged with.
	 */
	public enum LowCardinalityKeyNames implements KeyName {

		/**
		 * The lock's {@link dev.distlock.LockName#base() base name}: the annotation's
		 * name for an annotated lock, the name a programmatic caller gave otherwise (the
		 * base of a keyed name, or a name given whole), never a key value.
		 */
		NAME {

			@Override
			public String asString() {
				return "name";
			}

		},

		/**
		 * How the wait or hold ended: a {@link LockObservationResult}, once it did.
		 */
		RESULT {

			@Override
			public String asString() {
				return "result";
			}

		}

	}

	/**
	 * Keys with a value per lock or hold, for traces only.
	 */
	public enum HighCardinalityKeyNames implements KeyName {

		/**
		 * The lock's {@link dev.distlock.LockName#keyValue() key value}, as encoded in
		 * its name, for a keyed name.
		 */
		KEY {

			@Override
			public String asString() {
				return "key";
			}

		},

		/**
		 * The hold's fencing token, once the lock is acquired.
		 */
		FENCING_TOKEN {

			@Override
			public String asString() {
				return "fencing.token";
			}

		}

	}

	/**
	 * What happens to a hold while it is held.
	 */
	public enum HoldEvents implements Observation.Event {

		/**
		 * A renewal of the hold failed and left time on its lease.
		 */
		RENEWAL_FAILED {

			@Override
			public String getName() {
				return "renewal.failed";
			}

			@Override
			public String getContextualName() {
				return "renewal failed";
			}

		},

		/**
		 * The hold was found lost.
		 */
		LOST {

			@Override
			public String getName() {
				return "lost";
			}

		}

	}

}
