package dev.distlock.redis;

import java.util.OptionalInt;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * What distlock reads of the pool a Spring Data Redis connection factory lends its
 * connections from: how many it lends at once. Only Jedis' factory lends each call a
 * connection of its own from a bounded pool (Commons Pool's); Lettuce's shares one.
 * Jedis' types are touched only when Jedis is on the class path.
 */
final class ConnectionPools {

	private static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.Jedis",
			ConnectionPools.class.getClassLoader());

	private ConnectionPools() {
	}

	/**
	 * Return the most connections the factory lends at once, empty when it lends from no
	 * bounded pool (a Jedis factory without a pool or with an unbounded one, or a factory
	 * of another driver).
	 * @param factory the connection factory
	 */
	static OptionalInt maxTotalOf(RedisConnectionFactory factory) {
		if (JEDIS_PRESENT && factory instanceof JedisConnectionFactory jedis && jedis.getUsePool()) {
			GenericObjectPoolConfig<?> pool = jedis.getPoolConfig();
			if (pool != null && pool.getMaxTotal() > 0) {
				return OptionalInt.of(pool.getMaxTotal());
			}
		}
		return OptionalInt.empty();
	}

}
