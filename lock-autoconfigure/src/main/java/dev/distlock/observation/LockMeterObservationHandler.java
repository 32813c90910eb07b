package dev.distlock.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.Observation;

import org.springframework.util.Assert;

/**
 * {@link MeterObservationHandler} that records the observations of locks as distlock's
 * meters, each tagged with the observation's low-cardinality keys ({@code name}, and
 * {@code result} on the timers):
 * <ul>
 * <li>{@code distlock.wait}: timer of the time callers waited, tagged {@code result}
 * ({@code acquired}, {@code failed} when not acquired within the wait time, or
 * {@code error}); its count is the number of waits that ended so</li>
 * <li>{@code distlock.hold}: timer of the time holds were held until their release,
 * tagged {@code result} ({@code released} or {@code lost})</li>
 * <li>{@code distlock.lost}: counter of lost holds</li>
 * <li>{@code distlock.renewal.failed}: counter of renewals that failed and left time on
 * the lease, one per hold and failed renewal round</li>
 * </ul>
 *
 * <p>
 * Registered with an observation registry before Micrometer's
 * {@code DefaultMeterObservationHandler}, in one first-matching handler as Spring Boot's
 * observation auto-configuration groups them, it is the one that handles these
 * observations: nothing counts them twice, and no long-task timers or {@code error} tags
 * are added to distlock's meters.
 *
 * @since 0.1.0
 */
public class LockMeterObservationHandler implements MeterObservationHandler<LockObservationContext> {

	private final MeterRegistry registry;

	/**
	 * Create a handler that registers its meters in the given registry.
	 * @param registry the meter registry
	 */
	public LockMeterObservationHandler(MeterRegistry registry) {
		Assert.notNull(registry, "'registry' must not be null");
		this.registry = registry;
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof LockObservationContext;
	}

	@Override
	public void onStart(LockObservationContext context) {
		context.put(Timer.Sample.class, Timer.start(this.registry));
	}

	@Override
	public void onEvent(Observation.Event event, LockObservationContext context) {
		if (LockObservationDocumentation.HoldEvents.LOST.getName().equals(event.getName())) {
			count("distlock.lost", "Held locks lost before their release", context);
		}
		else if (LockObservationDocumentation.HoldEvents.RENEWAL_FAILED.getName().equals(event.getName())) {
			count("distlock.renewal.failed", "Renewals of held locks that failed and left time on the lease", context);
		}
	}

	@Override
	public void onStop(LockObservationContext context) {
		Timer timer = Timer.builder(context.getName())
			.description((context instanceof LockWaitContext) ? "Time callers waited to acquire locks"
					: "Time locks were held until released")
			.tags(tagsOf(context))
			.register(this.registry);
		Timer.Sample sample = context.getRequired(Timer.Sample.class);
		sample.stop(timer);
	}

	private void count(String name, String description, LockObservationContext context) {
		Counter.builder(name).description(description).tags(tagsOf(context)).register(this.registry).increment();
	}

	private static Tags tagsOf(LockObservationContext context) {
		Tags tags = Tags.empty();
		for (KeyValue keyValue : context.getLowCardinalityKeyValues()) {
			tags = tags.and(keyValue.getKey(), keyValue.getValue());
		}
		return tags;
	}

}
