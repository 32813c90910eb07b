package dev.distlock.check;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.testsupport.LettuceClients;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The {@code grant-drop} fault: for a while, Redis closes every subscriber's connection
 * every {@value #KILL_EVERY_MILLIS} ms ({@code CLIENT KILL TYPE pubsub}), so that the
 * grant messages published meanwhile reach nobody while the commands flow on. A waiter
 * whose grant's message is lost takes the grant up with its next attempt, or the grant
 * lapses and the lock passes on: the liveness check judges it, since this fault excuses
 * no wait.
 */
final class GrantDrops {

	/** How often the subscribers' connections are closed, in milliseconds. */
	static final long KILL_EVERY_MILLIS = 25;

	private GrantDrops() {
	}

	/**
	 * Close the subscribers' connections to a Redis again and again for the given time.
	 * @param uri the Redis the workers lock on
	 * @param millis how long
	 * @return how many connections were closed
	 */
	static long drop(String uri, long millis) {
		RedisClient client = RedisClient.create(uri);
		long closed = 0;
		try {
			RedisCommands<String, String> commands = client.connect().sync();
			long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
			while (System.nanoTime() - deadline < 0) {
				closed += commands.clientKill(KillArgs.Builder.typePubsub());
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(KILL_EVERY_MILLIS));
			}
		}
		finally {
			LettuceClients.shutdown(client);
		}
		return closed;
	}

}
