package dev.distlock.benchmarks;

/**
 * The two commands of the raw floor on one driver: {@code SET key token NX PX} and a
 * compare-and-delete script sent by its SHA, one round trip each.
 *
 * @since 0.1.0
 */
public interface RawCommands extends AutoCloseable {

	/** How long a raw lock lives, in milliseconds. */
	long LEASE_MILLIS = 30_000;

	/** The release script: delete the key only while it holds the caller's token. */
	String RELEASE_SCRIPT = "if redis.call('get', KEYS[1]) == ARGV[1] then "
			+ "return redis.call('del', KEYS[1]) else return 0 end";

	/**
	 * The acquire script of the fenced floor: the next fencing token of the lock (a
	 * counter beside its key) and {@code SET key token NX PX} in one call; the token when
	 * the key was set, 0 otherwise.
	 */
	String FENCED_ACQUIRE_SCRIPT = "local token = redis.call('incr', KEYS[2]) "
			+ "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return token else return 0 end";

	/**
	 * Set the key to the token unless it exists, expiring after {@link #LEASE_MILLIS}.
	 * @param key the lock's key
	 * @param token the holder's token
	 * @return whether the key was set
	 */
	boolean setIfAbsent(String key, String token);

	/**
	 * Run the release script.
	 * @param key the lock's key
	 * @param token the holder's token
	 * @return whether the key held the token and was deleted
	 */
	boolean deleteIfHeld(String key, String token);

	@Override
	void close();

}
