package dev.distlock.observation;

import java.time.Duration;
import java.util.List;

import dev.distlock.DistributedLockException;
import dev.distlock.LockLostEvent;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.LockRenewalFailedEvent;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LockMeterObservationHandler}: the meters that the observations of
 * {@link ObservationLockObserver} record.
 */
class LockMeterObservationHandlerTests {

	private final SimpleMeterRegistry meterRegistry = new SimpleMeterRegistry();

	private final ObservationRegistry observationRegistry = ObservationRegistry.create();

	private final LockObserver observer = new ObservationLockObserver(this.observationRegistry);

	@Test
	void keyValuesOfOneLockShareItsMeters() {
		this.observationRegistry.observationConfig()
			.observationHandler(new LockMeterObservationHandler(this.meterRegistry));
		for (int id = 0; id < 100; id++) {
			this.observer.waitStarted(LockName.keyed("order", Integer.toString(id))).acquired(id + 1).released();
		}
		this.observer.waitStarted(LockName.keyed("order", "1")).notAcquired();
		this.observer.waitStarted(LockName.keyed("order", "1")).failed(new DistributedLockException("Redis is down"));
		LockObserver.Hold lost = this.observer.waitStarted(LockName.keyed("order", "2")).acquired(200);
		lost.renewalFailed(new LockRenewalFailedEvent("order:2", "lock:order:2", 200, "test", Duration.ofSeconds(20)));
		lost.lost(new LockLostEvent("order:2", "lock:order:2", 200, "test"));
		lost.released();
		assertThat(this.meterRegistry.getMeters()).extracting((meter) -> meter.getId().getTag("name"))
			.containsOnly("order");
		assertThat(this.meterRegistry.getMeters()).extracting(Meter::getId)
			.extracting((id) -> id.getName() + id.getTags())
			.containsExactlyInAnyOrder("distlock.wait[tag(name=order), tag(result=acquired)]",
					"distlock.wait[tag(name=order), tag(result=failed)]",
					"distlock.wait[tag(name=order), tag(result=error)]",
					"distlock.hold[tag(name=order), tag(result=released)]",
					"distlock.hold[tag(name=order), tag(result=lost)]", "distlock.lost[tag(name=order)]",
					"distlock.renewal.failed[tag(name=order)]");
		assertThat(this.meterRegistry.get("distlock.wait").tag("result", "acquired").timer().count()).isEqualTo(101);
		assertThat(this.meterRegistry.get("distlock.hold").tag("result", "released").timer().count()).isEqualTo(100);
		assertThat(this.meterRegistry.get("distlock.hold").tag("result", "lost").timer().count()).isOne();
		assertThat(this.meterRegistry.get("distlock.wait").tag("result", "failed").timer().count()).isOne();
		assertThat(this.meterRegistry.get("distlock.wait").tag("result", "error").timer().count()).isOne();
		assertThat(this.meterRegistry.get("distlock.lost").counter().count()).isOne();
		assertThat(this.meterRegistry.get("distlock.renewal.failed").counter().count()).isOne();
	}

	@Test
	void handlesLockObservationsAheadOfTheDefaultMeterHandlerWhichRecordsThemNoMore() {
		this.observationRegistry.observationConfig()
			.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
					List.of(new LockMeterObservationHandler(this.meterRegistry),
							new DefaultMeterObservationHandler(this.meterRegistry))));
		LockObserver.Hold hold = this.observer.waitStarted(LockName.of("report")).acquired(1);
		hold.lost(new LockLostEvent("report", "lock:report", 1, "test"));
		hold.released();
		assertThat(this.meterRegistry.getMeters()).extracting(Meter::getId)
			.extracting((id) -> id.getName() + id.getTags())
			.containsExactlyInAnyOrder("distlock.wait[tag(name=report), tag(result=acquired)]",
					"distlock.hold[tag(name=report), tag(result=lost)]", "distlock.lost[tag(name=report)]");
		assertThat(this.meterRegistry.get("distlock.wait").timer().count()).isOne();
	}

	@Test
	void registryWithoutHandlersObservesNothing() {
		assertThat(this.observer.waitStarted(LockName.of("report"))).isSameAs(LockObserver.Wait.NONE);
	}

}
