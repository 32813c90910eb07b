package dev.distlock.check;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.TcpProxy;

/**
 * One worker's network to the lock Redis: a {@link TcpProxy} in front of each lock node
 * (one for a single Redis, one per node of a Redlock quorum), so that a fault on the
 * worker's network hits its connections to every node at once, and a partition of one
 * node hits that node's proxy alone.
 */
final class WorkerNetwork {

	private final List<TcpProxy> proxies;

	/**
	 * Start a proxy in front of each of the given nodes.
	 * @param closer closes the proxies
	 * @param nodes the lock nodes, in order
	 */
	WorkerNetwork(Closer closer, List<RedisServer> nodes) {
		this.proxies = nodes.stream().map((node) -> closer.add(TcpProxy.start(node.port()))).toList();
	}

	/**
	 * Return the URIs the worker connects to, one per node in order, separated by commas.
	 * @return the URIs
	 */
	String uris() {
		return this.proxies.stream().map(TcpProxy::uri).collect(Collectors.joining(","));
	}

	/**
	 * Return the proxy in front of the given node.
	 * @param node the node's position
	 * @return the proxy
	 */
	TcpProxy toNode(int node) {
		return this.proxies.get(node);
	}

	/**
	 * Stall every connection, open and new, until {@link #heal()}.
	 */
	void stall() {
		this.proxies.forEach(TcpProxy::stall);
	}

	/**
	 * Close every open connection and refuse new ones until {@link #heal()}.
	 */
	void cutConnections() {
		this.proxies.forEach(TcpProxy::cutConnections);
	}

	/**
	 * Delay everything sent either way by the given time.
	 * @param latency the delay
	 */
	void setLatency(Duration latency) {
		this.proxies.forEach((proxy) -> proxy.setLatency(latency));
	}

	/**
	 * Delay what Redis sends back by the given time, letting what the worker sends
	 * through at once.
	 * @param latency the delay
	 */
	void setReplyLatency(Duration latency) {
		this.proxies.forEach((proxy) -> proxy.setReplyLatency(latency));
	}

	/**
	 * Hold what the worker sends until {@link #heal()}, letting the replies through.
	 */
	void stallRequests() {
		this.proxies.forEach(TcpProxy::stallRequests);
	}

	/**
	 * End a stall, a cut and a latency.
	 */
	void heal() {
		this.proxies.forEach(TcpProxy::heal);
	}

	/**
	 * Return how many connections are open through the proxies.
	 * @return the count
	 */
	int openConnections() {
		return this.proxies.stream().mapToInt(TcpProxy::openConnections).sum();
	}

}
