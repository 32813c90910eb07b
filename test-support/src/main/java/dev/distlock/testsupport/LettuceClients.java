package dev.distlock.testsupport;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.AbstractRedisClient;

/**
 * Shuts Lettuce clients down within a bounded time. {@link AbstractRedisClient#shutdown}
 * waits for its shutdown without end, and on a busy machine that wait was seen never to
 * return although every thread of the client had ended; a test's clean-up must not hang
 * the build.
 */
public final class LettuceClients {

	/** How long a shutdown may take before the clean-up goes on without it. */
	public static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

	private LettuceClients() {
	}

	/**
	 * Shut the client down at once, waiting at most {@link #SHUTDOWN_TIMEOUT}.
	 * @param client the client
	 */
	public static void shutdown(AbstractRedisClient client) {
		shutdown(client, Duration.ZERO);
	}

	/**
	 * Shut the client down, giving its connections the given time to close, and waiting
	 * at most that time plus {@link #SHUTDOWN_TIMEOUT}.
	 * @param client the client
	 * @param timeout how long its resources may take to close
	 */
	public static void shutdown(AbstractRedisClient client, Duration timeout) {
		try {
			client.shutdownAsync(0, timeout.toMillis(), TimeUnit.MILLISECONDS)
				.get(timeout.plus(SHUTDOWN_TIMEOUT).toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			System.err.println("[distlock-testsupport] Lettuce client not shut down within "
					+ timeout.plus(SHUTDOWN_TIMEOUT).toSeconds() + " s: " + ex);
		}
	}

}
