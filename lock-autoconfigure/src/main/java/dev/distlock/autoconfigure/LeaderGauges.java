package dev.distlock.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.context.event.EventListener;

/**
 * The gauge {@code distlock.leader}, one per leadership name (tag {@code name}): 1 while
 * this instance leads it, 0 otherwise, kept from the leadership events. The names of
 * {@code distlock.leader.names} are gauged from the start, at 0; another leadership from
 * its first term.
 */
final class LeaderGauges {

	static final String NAME = "distlock.leader";

	private final MeterRegistry meterRegistry;

	private final Map<String, AtomicInteger> leading = new ConcurrentHashMap<>();

	LeaderGauges(MeterRegistry meterRegistry, List<String> names) {
		this.meterRegistry = meterRegistry;
		names.forEach(this::leading);
	}

	@EventListener
	void granted(LeadershipGrantedEvent event) {
		leading(event.name()).set(1);
	}

	@EventListener
	void revoked(LeadershipRevokedEvent event) {
		leading(event.name()).set(0);
	}

	/**
	 * Return the value of the gauge of a leadership, registering the gauge first.
	 */
	private AtomicInteger leading(String name) {
		return this.leading.computeIfAbsent(name, (key) -> {
			AtomicInteger value = new AtomicInteger();
			Gauge.builder(NAME, value, AtomicInteger::get)
				.tag("name", key)
				.description("Whether this instance leads the leadership: 1 while it does, 0 otherwise")
				.register(this.meterRegistry);
			return value;
		});
	}

}
