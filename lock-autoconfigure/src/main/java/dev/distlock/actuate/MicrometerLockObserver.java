package dev.distlock.actuate;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockLostEvent;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.LockRenewalFailedEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import org.springframework.util.Assert;

/**
 * {@link LockObserver} that records what a lock registry does as Micrometer meters, each
 * tagged {@code name}:
 * <ul>
 * <li>{@code distlock.wait}: timer of the time callers waited, tagged {@code result}
 * ({@code acquired} or {@code failed}); its count is the number of acquisitions made, or
 * not made within the wait time</li>
 * <li>{@code distlock.hold}: timer of the time holds were held until released</li>
 * <li>{@code distlock.lost}: counter of lost holds</li>
 * <li>{@code distlock.renewal.failed}: counter of renewals that failed and left time on
 * the lease, one per hold and failed renewal round</li>
 * <li>{@code distlock.leader}: gauge of the leaderships this instance holds now, from the
 * first term of a leadership on; a leadership's terms are holds of its lock, so they are
 * also timed by {@code distlock.hold}, the waits of its standby by {@code distlock.wait},
 * and its lost terms counted by {@code distlock.lost}</li>
 * </ul>
 *
 * <p>
 * The {@code name} tag must take a bounded set of values, or every key value would create
 * new time series, so it is the lock's {@link LockName#base() base name}: an annotated
 * lock {@code order} with a key is tagged {@code order} for every key value, and
 * programmatic names that follow the {@code <name>:<id>} convention are tagged
 * {@code <name>}.
 *
 * <p>
 * Meters are created once per tag value and reused.
 *
 * @since 0.1.0
 */
public class MicrometerLockObserver implements LockObserver {

	private final MeterRegistry registry;

	private final Map<String, Meters> meters = new ConcurrentHashMap<>();

	/** Leaderships held, by tag value; the gauges read them and keep no reference. */
	private final Map<String, AtomicInteger> leaderships = new ConcurrentHashMap<>();

	/**
	 * Create an observer that registers its meters in the given registry.
	 * @param registry the meter registry
	 */
	public MicrometerLockObserver(MeterRegistry registry) {
		Assert.notNull(registry, "'registry' must not be null");
		this.registry = registry;
	}

	@Override
	public void acquired(LockName name, Duration waited) {
		metersOf(name).waitAcquired.record(waited);
	}

	@Override
	public void notAcquired(LockName name, Duration waited) {
		metersOf(name).waitFailed.record(waited);
	}

	@Override
	public void released(LockName name, Duration held) {
		metersOf(name).hold.record(held);
	}

	@Override
	public void lost(LockName name, LockLostEvent event) {
		metersOf(name).lost.increment();
	}

	@Override
	public void renewalFailed(LockName name, LockRenewalFailedEvent event) {
		metersOf(name).renewalFailed.increment();
	}

	@Override
	public void leadershipGranted(LockName name, LeadershipGrantedEvent event) {
		leadershipsOf(name).incrementAndGet();
	}

	@Override
	public void leadershipRevoked(LockName name, LeadershipRevokedEvent event) {
		leadershipsOf(name).decrementAndGet();
	}

	private AtomicInteger leadershipsOf(LockName name) {
		return this.leaderships.computeIfAbsent(name.base(), (tag) -> {
			AtomicInteger held = new AtomicInteger();
			Gauge.builder("distlock.leader", held, AtomicInteger::get)
				.description("Leaderships this instance holds")
				.tag("name", tag)
				.register(this.registry);
			return held;
		});
	}

	private Meters metersOf(LockName name) {
		return this.meters.computeIfAbsent(name.base(), (tag) -> new Meters(this.registry, tag));
	}

	/**
	 * The meters of one {@code name} tag value.
	 */
	private static final class Meters {

		final Timer waitAcquired;

		final Timer waitFailed;

		final Timer hold;

		final Counter lost;

		final Counter renewalFailed;

		Meters(MeterRegistry registry, String tag) {
			this.waitAcquired = waitTimer(registry, tag, "acquired");
			this.waitFailed = waitTimer(registry, tag, "failed");
			this.hold = Timer.builder("distlock.hold")
				.description("Time locks were held until released")
				.tag("name", tag)
				.register(registry);
			this.lost = Counter.builder("distlock.lost")
				.description("Held locks lost before their release")
				.tag("name", tag)
				.register(registry);
			this.renewalFailed = Counter.builder("distlock.renewal.failed")
				.description("Renewals of held locks that failed and left time on the lease")
				.tag("name", tag)
				.register(registry);
		}

		private static Timer waitTimer(MeterRegistry registry, String tag, String result) {
			return Timer.builder("distlock.wait")
				.description("Time callers waited to acquire locks")
				.tag("name", tag)
				.tag("result", result)
				.register(registry);
		}

	}

}
