package dev.distlock.benchmarks;

import java.time.Duration;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The drivers under Spring Data Redis that contenders run on: each makes a started
 * connection factory for one Redis, which the contender owns and destroys.
 *
 * @since 0.1.0
 */
public enum SpringDataDriver {

	/** A {@code LettuceConnectionFactory}: one shared connection. */
	LETTUCE("Lettuce"),

	/** A pooled {@code JedisConnectionFactory}. */
	JEDIS("Jedis");

	/**
	 * Jedis connections in a pool at most, none of them closed when returned: the 16
	 * threads of the busiest scenario and the connections a lock registry keeps for
	 * itself (a subscription, renewals, give-backs).
	 */
	public static final int POOL_SIZE = 32;

	/** How long a command may wait for Redis, as the other contenders' timeouts. */
	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final String label;

	SpringDataDriver(String label) {
		this.label = label;
	}

	/**
	 * Return the driver's name in the report.
	 * @return {@code Lettuce} or {@code Jedis}
	 */
	public String label() {
		return this.label;
	}

	/**
	 * Return a started connection factory for the Redis at the given address.
	 * @param host Redis host
	 * @param port Redis port
	 * @return the factory; {@link #destroy} it after use
	 */
	public RedisConnectionFactory connect(String host, int port) {
		RedisStandaloneConfiguration redis = new RedisStandaloneConfiguration(host, port);
		if (this == JEDIS) {
			GenericObjectPoolConfig<?> pool = new GenericObjectPoolConfig<>();
			pool.setMaxTotal(POOL_SIZE);
			pool.setMaxIdle(POOL_SIZE);
			JedisConnectionFactory factory = new JedisConnectionFactory(redis,
					JedisClientConfiguration.builder()
						.connectTimeout(TIMEOUT)
						.readTimeout(TIMEOUT)
						.usePooling()
						.poolConfig(pool)
						.build());
			factory.afterPropertiesSet();
			factory.start();
			return factory;
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(redis,
				LettuceClientConfiguration.builder().commandTimeout(TIMEOUT).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Destroy a factory made by {@link #connect}, closing its connections.
	 * @param factory the factory
	 */
	public static void destroy(RedisConnectionFactory factory) {
		try {
			((DisposableBean) factory).destroy();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Destroying " + factory + " failed", ex);
		}
	}

}
