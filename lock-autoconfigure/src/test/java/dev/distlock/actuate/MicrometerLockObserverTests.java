package dev.distlock.actuate;

import java.time.Duration;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockLostEvent;
import dev.distlock.LockName;
import dev.distlock.LockRenewalFailedEvent;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link MicrometerLockObserver}.
 */
class MicrometerLockObserverTests {

	private final SimpleMeterRegistry meterRegistry = new SimpleMeterRegistry();

	private final MicrometerLockObserver observer = new MicrometerLockObserver(this.meterRegistry);

	@Test
	void keyValuesOfOneLockShareItsMeters() {
		for (int id = 0; id < 100; id++) {
			this.observer.acquired(LockName.keyed("order", Integer.toString(id)), Duration.ofMillis(1));
			this.observer.released(LockName.keyed("order", Integer.toString(id)), Duration.ofMillis(5));
		}
		this.observer.notAcquired(LockName.of("order:1"), Duration.ofMillis(10));
		this.observer.lost(LockName.of("order:2"), new LockLostEvent("order:2", "lock:order:2", 3, "test"));
		this.observer.renewalFailed(LockName.of("order:3"),
				new LockRenewalFailedEvent("order:3", "lock:order:3", 4, "test", Duration.ofSeconds(20)));
		assertThat(this.meterRegistry.getMeters()).extracting((meter) -> meter.getId().getTag("name"))
			.containsOnly("order");
		assertThat(this.meterRegistry.getMeters()).extracting(Meter::getId)
			.extracting((id) -> id.getName() + id.getTags())
			.containsExactlyInAnyOrder("distlock.wait[tag(name=order), tag(result=acquired)]",
					"distlock.wait[tag(name=order), tag(result=failed)]", "distlock.hold[tag(name=order)]",
					"distlock.lost[tag(name=order)]", "distlock.renewal.failed[tag(name=order)]");
		assertThat(this.meterRegistry.get("distlock.wait").tag("result", "acquired").timer().count()).isEqualTo(100);
		assertThat(this.meterRegistry.get("distlock.hold").timer().count()).isEqualTo(100);
		assertThat(this.meterRegistry.get("distlock.wait").tag("result", "failed").timer().count()).isOne();
		assertThat(this.meterRegistry.get("distlock.lost").counter().count()).isOne();
		assertThat(this.meterRegistry.get("distlock.renewal.failed").counter().count()).isOne();
	}

	@Test
	void leaderGaugeCountsTheLeadershipsOfABaseNameHeldNow() {
		LockName eu = LockName.of("report:eu");
		LockName us = LockName.of("report:us");
		this.observer.leadershipGranted(eu, new LeadershipGrantedEvent("report:eu", "lock:report:eu", 1));
		this.observer.leadershipGranted(us, new LeadershipGrantedEvent("report:us", "lock:report:us", 2));
		assertThat(this.meterRegistry.get("distlock.leader").tag("name", "report").gauge().value()).isEqualTo(2);
		this.observer.leadershipRevoked(eu, new LeadershipRevokedEvent("report:eu", "lock:report:eu", 1, "test"));
		assertThat(this.meterRegistry.get("distlock.leader").tag("name", "report").gauge().value()).isOne();
		assertThat(this.meterRegistry.getMeters()).extracting((meter) -> meter.getId().getName())
			.containsExactly("distlock.leader");
	}

}
