package dev.distlock.redis;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A tiny storage service that checks fencing tokens, as the resource a lock protects must
 * (recipe 6 in docs/design.md#failure-recipes): it remembers the highest token it has
 * seen and rejects a write that comes with a smaller one. Value and highest token live in
 * Redis and are checked and written by one script, so no other write can slip in between.
 */
final class FencedStorage {

	private static final String WRITE = """
			local highest = tonumber(redis.call('get', KEYS[2]) or '0')
			if tonumber(ARGV[1]) < highest then
				return 0
			end
			redis.call('set', KEYS[2], ARGV[1])
			redis.call('set', KEYS[1], ARGV[2])
			return 1
			""";

	private final RedisCommands<String, String> redis;

	private final String valueKey;

	private final String highestTokenKey;

	/**
	 * Create a storage of one value.
	 * @param redis where the value is stored
	 * @param name the value's key; the highest token is kept beside it
	 */
	FencedStorage(RedisCommands<String, String> redis, String name) {
		this.redis = redis;
		this.valueKey = name;
		this.highestTokenKey = name + ":highest-token";
	}

	/**
	 * Store a value unless a writer with a larger fencing token has written before.
	 * @param fencingToken the writer's fencing token
	 * @param value the value
	 * @return whether the value was stored
	 */
	boolean write(long fencingToken, String value) {
		Long stored = this.redis.eval(WRITE, ScriptOutputType.INTEGER,
				new String[] { this.valueKey, this.highestTokenKey }, Long.toString(fencingToken), value);
		return stored == 1L;
	}

	/**
	 * Return the stored value.
	 * @return the value, or {@code null} if none was written
	 */
	String read() {
		return this.redis.get(this.valueKey);
	}

}
