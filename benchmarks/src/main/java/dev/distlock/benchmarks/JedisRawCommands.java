package dev.distlock.benchmarks;

import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * The raw floor's commands on a Jedis connection pool: each command borrows a connection
 * and returns it, as Spring Data Redis on Jedis does.
 *
 * @since 0.1.0
 */
public final class JedisRawCommands implements RawCommands {

	private final RedisClient jedis;

	private final String releaseSha;

	private final SetParams setParams = SetParams.setParams().nx().px(LEASE_MILLIS);

	/**
	 * Connect to Redis and load the release script.
	 * @param host Redis host
	 * @param port Redis port
	 * @param poolSize connections in the pool at most, none of them closed when returned
	 */
	public JedisRawCommands(String host, int port, int poolSize) {
		ConnectionPoolConfig pool = new ConnectionPoolConfig();
		pool.setMaxTotal(poolSize);
		pool.setMaxIdle(poolSize);
		this.jedis = RedisClient.builder().hostAndPort(host, port).poolConfig(pool).build();
		this.releaseSha = this.jedis.scriptLoad(RELEASE_SCRIPT);
	}

	@Override
	public boolean setIfAbsent(String key, String token) {
		return this.jedis.set(key, token, this.setParams) != null;
	}

	@Override
	public boolean deleteIfHeld(String key, String token) {
		return Long.valueOf(1).equals(this.jedis.evalsha(this.releaseSha, 1, key, token));
	}

	@Override
	public void close() {
		this.jedis.close();
	}

}
