package dev.distlock.autoconfigure;

import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.distlock.LockObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The counter {@code distlock.redlock.replies}: per node of
 * {@code distlock.redlock.nodes} (tag {@code node}, its {@code host:port}) and outcome
 * (tag {@code outcome}: {@code granted}, {@code refused}, or {@code failed} for a failure
 * or no answer in time), the node's replies to attempts to take a lock, as the registry
 * tells them to its {@link LockObserver observers}. Every node's counters are registered
 * from the start, at 0, so that a node that never answers shows as one.
 */
final class RedlockNodeMeters implements LockObserver {

	static final String NAME = "distlock.redlock.replies";

	private final List<Map<NodeReply, Counter>> counters;

	/**
	 * Register the counters of the given nodes.
	 * @param meterRegistry where to register them
	 * @param nodes the URIs of the nodes, in the order of {@code distlock.redlock.nodes}
	 */
	RedlockNodeMeters(MeterRegistry meterRegistry, List<String> nodes) {
		this.counters = nodes.stream().map((uri) -> counters(meterRegistry, RedlockNodeUri.address(uri))).toList();
	}

	@Override
	public void nodeReplied(int node, NodeReply reply) {
		this.counters.get(node).get(reply).increment();
	}

	private static Map<NodeReply, Counter> counters(MeterRegistry meterRegistry, String address) {
		Map<NodeReply, Counter> counters = new EnumMap<>(NodeReply.class);
		for (NodeReply reply : NodeReply.values()) {
			counters.put(reply,
					Counter.builder(NAME)
						.tag("node", address)
						.tag("outcome", reply.name().toLowerCase(Locale.ROOT))
						.description("Replies of a Redlock node to attempts to take a lock")
						.register(meterRegistry));
		}
		return counters;
	}

}
