package dev.distlock.aop;

import java.time.Duration;
import java.util.List;

import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisTestClient;

import org.springframework.context.ApplicationContext;

/**
 * The lock keys of a real {@code redis-server}, read, or taken over as another owner
 * would take them, each through a connection of its own.
 */
final class RedisLocks {

	private final RedisServer server;

	RedisLocks(RedisServer server) {
		this.server = server;
	}

	/**
	 * Write another owner's token into a lock key and have the context's registry renew
	 * its leases at once, so that the holder finds the lock lost now rather than at the
	 * next renewal period.
	 * @param context the application context whose registry holds the lock
	 * @param key the lock's Redis key
	 */
	void takeOver(ApplicationContext context, String key) {
		try (RedisTestClient client = connect()) {
			client.sync().set(key, "someone-else");
		}
		context.getBean(RedisLockRegistry.class).renewLeases();
	}

	/**
	 * Return the value of a key.
	 * @param key the key
	 * @return its value, or {@code null} if it does not exist
	 */
	String get(String key) {
		try (RedisTestClient client = connect()) {
			return client.sync().get(key);
		}
	}

	/**
	 * Return the keys that match a pattern.
	 * @param pattern a pattern such as {@code lock:*}
	 * @return the keys
	 */
	List<String> keys(String pattern) {
		try (RedisTestClient client = connect()) {
			return client.sync().keys(pattern);
		}
	}

	private RedisTestClient connect() {
		return RedisTestClient.connect(this.server.uri(), Duration.ofSeconds(5));
	}

}
