package dev.distlock.benchmarks;

import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The raw floor's commands on one Lettuce connection shared by every thread.
 *
 * @since 0.1.0
 */
public final class LettuceRawCommands implements RawCommands {

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> redis;

	private final String releaseSha;

	private final SetArgs setArgs = SetArgs.Builder.nx().px(LEASE_MILLIS);

	/**
	 * Connect to Redis and load the release script.
	 * @param redisUri where Redis listens
	 */
	public LettuceRawCommands(String redisUri) {
		this.client = RedisClient.create(redisUri);
		this.connection = this.client.connect();
		this.redis = this.connection.sync();
		this.releaseSha = this.redis.scriptLoad(RELEASE_SCRIPT);
	}

	@Override
	public boolean setIfAbsent(String key, String token) {
		return this.redis.set(key, token, this.setArgs) != null;
	}

	@Override
	public boolean deleteIfHeld(String key, String token) {
		Long deleted = this.redis.evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { key }, token);
		return deleted != null && deleted == 1L;
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown(0, 2, TimeUnit.SECONDS);
	}

}
