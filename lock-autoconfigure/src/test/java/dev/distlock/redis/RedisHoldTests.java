package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLostEvent;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.redis.renewal.LeaseTerms;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How long a {@link RedisHold} is known to be valid when it is renewed and extended in
 * any order, and how its observation hears of its loss.
 */
class RedisHoldTests {

	private static final LeaseTerms TERMS = new LeaseTerms(1_000, 0);

	private static final LockLostEvent LOSS = new LockLostEvent("job", "lock:job", 1, "test");

	@Test
	void renewalSentBeforeAnExtensionButSettledAfterItLeavesTheExtensionsValidity() {
		RedisHold hold = hold();
		long renewalSent = System.nanoTime();
		long extensionSent = renewalSent + TimeUnit.MILLISECONDS.toNanos(10);
		hold.extend(extensionSent, new LeaseTerms(5_000, 0));
		hold.extend(renewalSent, TERMS);
		assertThat(hold.validUntilNanos() - extensionSent).isEqualTo(Duration.ofSeconds(5).toNanos());
	}

	@Test
	void lossReportedAfterTheHoldIsObservedIsToldToTheObservationOnce() {
		RedisHold hold = hold();
		RecordingHold observation = new RecordingHold();
		hold.observe(observation);
		hold.observeLoss(LOSS);
		assertThat(observation.losses).containsExactly(LOSS);
		assertThat(hold.observation()).isSameAs(observation);
	}

	private static RedisHold hold() {
		return new RedisHold(new LockId(LockName.of("job"), "lock:job"), HoldKind.EXCLUSIVE, "token", 1,
				System.nanoTime(), TERMS, LeaseOptions.WATCHDOG);
	}

	/**
	 * A hold's observation that records the losses it is told of.
	 */
	private static final class RecordingHold implements LockObserver.Hold {

		final List<LockLostEvent> losses = new CopyOnWriteArrayList<>();

		@Override
		public void lost(LockLostEvent event) {
			this.losses.add(event);
		}

	}

}
