package dev.distlock.check;

import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockName;
import dev.distlock.testsupport.LettuceClients;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * The {@code grant-echo} fault: for a while, every grant message on the workers' grant
 * channels is published once more, after a random delay of up to
 * {@value #MAX_DELAY_MILLIS} ms, so that waiters hear their grants twice, and the second
 * time late: after their claim time, after they took the grant up with an attempt, or
 * after they released the lock. A waiter starts only on a grant made after its last
 * attempt, while it still has it.
 */
final class GrantEchoes {

	/** The longest an echo comes after its grant's message, in milliseconds. */
	static final int MAX_DELAY_MILLIS = 400;

	private static final String GRANT_CHANNELS = CheckWorkerMain.KEY_PREFIX + LockName.RESERVED + "grants:*";

	private GrantEchoes() {
	}

	/**
	 * Echo the grant messages on a Redis for the given time, and wait for the last echo.
	 * @param uri the Redis the workers lock on
	 * @param seed the seed of the echoes' delays
	 * @param millis how long to listen
	 * @return how many grant messages were echoed
	 */
	static int echo(String uri, long seed, long millis) throws InterruptedException {
		Random delays = new Random(seed);
		AtomicInteger echoed = new AtomicInteger();
		RedisClient client = RedisClient.create(uri);
		ScheduledExecutorService echoes = Executors.newSingleThreadScheduledExecutor();
		try (StatefulRedisPubSubConnection<String, String> listening = client.connectPubSub();
				StatefulRedisConnection<String, String> publishing = client.connect()) {
			listening.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String pattern, String channel, String message) {
					if (message.indexOf(LockName.RESERVED) < 0) {
						return;
					}
					try {
						// Drawn on the listener's thread alone
						echoes.schedule(() -> {
							publishing.async().publish(channel, message);
							echoed.incrementAndGet();
						}, delays.nextInt(MAX_DELAY_MILLIS + 1), TimeUnit.MILLISECONDS);
					}
					catch (RejectedExecutionException ex) {
						// Heard after the echoing ended
					}
				}

			});
			listening.sync().psubscribe(GRANT_CHANNELS);
			Thread.sleep(millis);
			listening.sync().punsubscribe(GRANT_CHANNELS);
			echoes.shutdown();
			echoes.awaitTermination(MAX_DELAY_MILLIS + 1000, TimeUnit.MILLISECONDS);
		}
		finally {
			echoes.shutdownNow();
			LettuceClients.shutdown(client);
		}
		return echoed.get();
	}

}
