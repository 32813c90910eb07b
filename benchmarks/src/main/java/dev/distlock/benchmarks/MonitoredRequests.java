package dev.distlock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * Counts the requests that clients send to Redis, watching {@code MONITOR}: a script call
 * counts once, and the commands it runs (which Redis lists as run by {@code lua}) not at
 * all, unlike {@code INFO commandstats}, which counts those too. {@code MONITOR} slows
 * Redis (by about a sixth with 8 clients sending {@code SET}s on loopback), so it watches
 * a round of its own, never a measured one.
 *
 * @since 0.1.0
 */
final class MonitoredRequests implements AutoCloseable {

	private static final String END = "distlock-benchmarks-monitor-end";

	private static final long END_TIMEOUT_SECONDS = 30;

	private static final int REPLY_TIMEOUT_MILLIS = 10_000;

	private final Socket socket;

	private final RedisCommands<String, String> redis;

	private final AtomicLong requests = new AtomicLong();

	private final CountDownLatch ended = new CountDownLatch(1);

	private MonitoredRequests(Socket socket, RedisCommands<String, String> redis) {
		this.socket = socket;
		this.redis = redis;
	}

	/**
	 * Start counting.
	 * @param host Redis host
	 * @param port Redis port
	 * @param redis a connection of this JVM's, to send the mark that ends the count
	 * @return the counter, counting every request Redis runs from now on
	 */
	static MonitoredRequests start(String host, int port, RedisCommands<String, String> redis) {
		MonitoredRequests monitored = new MonitoredRequests(new Socket(), redis);
		try {
			monitored.socket.connect(new InetSocketAddress(host, port), REPLY_TIMEOUT_MILLIS);
			monitored.socket.setSoTimeout(REPLY_TIMEOUT_MILLIS);
			monitored.socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
			BufferedReader lines = new BufferedReader(
					new InputStreamReader(monitored.socket.getInputStream(), StandardCharsets.UTF_8));
			String reply = lines.readLine();
			if (!"+OK".equals(reply)) {
				monitored.close();
				throw new IllegalStateException("Redis refused MONITOR: " + reply);
			}
			monitored.socket.setSoTimeout(0);
			Thread reader = new Thread(() -> monitored.count(lines), "bench-monitor");
			reader.setDaemon(true);
			reader.start();
			return monitored;
		}
		catch (IOException ex) {
			monitored.close();
			throw new UncheckedIOException("Could not watch " + host + ":" + port, ex);
		}
	}

	/**
	 * Stop counting: every request Redis ran before this call is counted.
	 * @return the requests counted
	 */
	long stop() {
		this.redis.echo(END);
		try {
			if (!this.ended.await(END_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				throw new IllegalStateException("MONITOR did not show the end mark in " + END_TIMEOUT_SECONDS + " s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for MONITOR's end mark", ex);
		}
		return this.requests.get();
	}

	@Override
	public void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			// Nothing is read from it any more
		}
	}

	private void count(BufferedReader lines) {
		try {
			for (String line = lines.readLine(); line != null; line = lines.readLine()) {
				if (line.contains(END)) {
					this.ended.countDown();
					return;
				}
				if (!line.contains(" lua] ")) {
					this.requests.incrementAndGet();
				}
			}
		}
		catch (IOException ex) {
			// Closed before the end mark: stop() reports the missing mark
		}
	}

}
