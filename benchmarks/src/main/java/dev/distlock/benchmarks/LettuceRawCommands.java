package dev.distlock.benchmarks;

import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;

/**
 * The raw floor's commands on one Lettuce connection shared by every thread; fenced, the
 * {@code SET NX PX} is sent inside {@link #FENCED_ACQUIRE_SCRIPT}, which also issues a
 * fencing token: the least a lock that fences every hold asks of Redis.
 *
 * @since 0.1.0
 */
public final class LettuceRawCommands implements RawCommands {

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> redis;

	private final String releaseSha;

	private final @Nullable String fencedAcquireSha;

	private final SetArgs setArgs = SetArgs.Builder.nx().px(LEASE_MILLIS);

	/**
	 * Connect to Redis and load the scripts.
	 * @param redisUri where Redis listens
	 * @param fenced whether a lock is taken with the fenced acquire script rather than
	 * {@code SET NX PX}
	 */
	public LettuceRawCommands(String redisUri, boolean fenced) {
		this.client = RedisClient.create(redisUri);
		this.connection = this.client.connect();
		this.redis = this.connection.sync();
		this.releaseSha = this.redis.scriptLoad(RELEASE_SCRIPT);
		this.fencedAcquireSha = fenced ? this.redis.scriptLoad(FENCED_ACQUIRE_SCRIPT) : null;
	}

	@Override
	public boolean setIfAbsent(String key, String token) {
		if (this.fencedAcquireSha == null) {
			return this.redis.set(key, token, this.setArgs) != null;
		}
		Long fencingToken = this.redis.evalsha(this.fencedAcquireSha, ScriptOutputType.INTEGER,
				new String[] { key, key + ":fence" }, token, Long.toString(LEASE_MILLIS));
		return fencingToken != null && fencingToken > 0;
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
