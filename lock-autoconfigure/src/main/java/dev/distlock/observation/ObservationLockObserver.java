package dev.distlock.observation;

import dev.distlock.LockLostEvent;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.LockRenewalFailedEvent;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * {@link LockObserver} that reports what a lock registry does as Micrometer Observations:
 * {@code distlock.wait} around each caller's wait for a lock, and {@code distlock.hold}
 * from each acquisition to its release, with an event for each renewal that failed and
 * for a loss. With Micrometer Tracing they are spans of the caller's trace;
 * {@link LockMeterObservationHandler} turns them into distlock's meters.
 *
 * <p>
 * Both observations are created on the thread that waits for the lock, so their parent is
 * the observation current there. A registry without handlers costs nothing: waits are
 * then {@link LockObserver.Wait#NONE}.
 *
 * @since 0.1.0
 */
public class ObservationLockObserver implements LockObserver {

	private static final LockWaitObservationConvention DEFAULT_WAIT_CONVENTION = new DefaultLockWaitObservationConvention();

	private static final LockHoldObservationConvention DEFAULT_HOLD_CONVENTION = new DefaultLockHoldObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable LockWaitObservationConvention waitConvention;

	private final @Nullable LockHoldObservationConvention holdConvention;

	/**
	 * Create an observer that reports to the given registry with the default conventions,
	 * or those registered with it as global conventions.
	 * @param registry the observation registry
	 */
	public ObservationLockObserver(ObservationRegistry registry) {
		this(registry, null, null);
	}

	/**
	 * Create an observer that reports to the given registry with the given conventions.
	 * @param registry the observation registry
	 * @param waitConvention the convention of {@code distlock.wait}, or {@code null} for
	 * the registry's global convention or the default one
	 * @param holdConvention the convention of {@code distlock.hold}, or {@code null} for
	 * the registry's global convention or the default one
	 */
	public ObservationLockObserver(ObservationRegistry registry, @Nullable LockWaitObservationConvention waitConvention,
			@Nullable LockHoldObservationConvention holdConvention) {
		Assert.notNull(registry, "'registry' must not be null");
		this.registry = registry;
		this.waitConvention = waitConvention;
		this.holdConvention = holdConvention;
	}

	@Override
	public Wait waitStarted(LockName name) {
		if (this.registry.isNoop()) {
			return Wait.NONE;
		}
		LockWaitContext context = new LockWaitContext(name);
		Observation observation = LockObservationDocumentation.WAIT.start(this.waitConvention, DEFAULT_WAIT_CONVENTION,
				() -> context, this.registry);
		return new ObservedWait(context, observation);
	}

	private Hold holdStarted(LockName name, long fencingToken) {
		LockHoldContext context = new LockHoldContext(name, fencingToken);
		Observation observation = LockObservationDocumentation.HOLD.start(this.holdConvention, DEFAULT_HOLD_CONVENTION,
				() -> context, this.registry);
		return new ObservedHold(context, observation);
	}

	/**
	 * A wait observed as {@code distlock.wait}.
	 */
	private final class ObservedWait implements Wait {

		private final LockWaitContext context;

		private final Observation observation;

		ObservedWait(LockWaitContext context, Observation observation) {
			this.context = context;
			this.observation = observation;
		}

		@Override
		public Hold acquired(long fencingToken) {
			this.context.setFencingToken(fencingToken);
			stop(LockObservationResult.ACQUIRED);
			return holdStarted(this.context.getLockName(), fencingToken);
		}

		@Override
		public void notAcquired() {
			stop(LockObservationResult.FAILED);
		}

		@Override
		public void failed(Throwable failure) {
			this.observation.error(failure);
			stop(LockObservationResult.ERROR);
		}

		private void stop(LockObservationResult result) {
			this.context.setResult(result);
			this.observation.stop();
		}

	}

	/**
	 * A hold observed as {@code distlock.hold}.
	 *
	 * @param context the observation's context
	 * @param observation the observation, started
	 */
	private record ObservedHold(LockHoldContext context, Observation observation) implements Hold {

		@Override
		public void renewalFailed(LockRenewalFailedEvent event) {
			this.observation.event(LockObservationDocumentation.HoldEvents.RENEWAL_FAILED);
		}

		@Override
		public void lost(LockLostEvent event) {
			this.context.setResult(LockObservationResult.LOST);
			this.observation.event(LockObservationDocumentation.HoldEvents.LOST);
		}

		@Override
		public void released() {
			if (this.context.getResult() == null) {
				this.context.setResult(LockObservationResult.RELEASED);
			}
			this.observation.stop();
		}

	}

}
