package dev.distlock.testsupport;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Closes what a test opened (servers, proxies, registries, clients, rival JVMs) in
 * reverse order, keeping the first failure and adding the later ones to it as suppressed.
 * <pre class="code">
 * private final Closer closer = new Closer();
 *
 * &#64;AfterEach
 * void close() throws Exception {
 *     this.closer.close();
 * }
 * </pre>
 */
public final class Closer implements AutoCloseable {

	private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

	/**
	 * Registers something to close.
	 * @param <T> its type
	 * @param closeable what to close
	 * @return {@code closeable}, for chaining
	 */
	public synchronized <T extends AutoCloseable> T add(T closeable) {
		this.closeables.push(closeable);
		return closeable;
	}

	/**
	 * Closes everything registered, most recent first.
	 * @throws Exception the first failure, with the later ones suppressed
	 */
	@Override
	public synchronized void close() throws Exception {
		Exception failure = null;
		while (!this.closeables.isEmpty()) {
			try {
				this.closeables.pop().close();
			}
			catch (Exception ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

}
