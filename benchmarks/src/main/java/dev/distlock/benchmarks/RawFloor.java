package dev.distlock.benchmarks;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The floor every lock is measured against: {@code SET key token NX PX} and a
 * compare-and-delete {@code EVALSHA} on one shared Lettuce connection, two round trips
 * and nothing else.
 *
 * <p>
 * With {@code spinOnFailure} it is the naive spinner of the contended scenarios: a failed
 * {@code SET NX} sleeps 1 ms and tries again.
 *
 * @since 0.1.0
 */
public final class RawFloor implements Contender {

	private static final String RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
			+ "return redis.call('del', KEYS[1]) else return 0 end";

	private static final long LEASE_MILLIS = 30_000;

	private final String name;

	private final boolean spinOnFailure;

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> redis;

	private final String releaseSha;

	private final SetArgs setArgs = SetArgs.Builder.nx().px(LEASE_MILLIS);

	/**
	 * Connect the floor.
	 * @param name the name in the report
	 * @param redisUri where Redis listens
	 * @param spinOnFailure whether to sleep 1 ms and retry when the lock is taken
	 */
	public RawFloor(String name, String redisUri, boolean spinOnFailure) {
		this.name = name;
		this.spinOnFailure = spinOnFailure;
		this.client = RedisClient.create(redisUri);
		this.connection = this.client.connect();
		this.redis = this.connection.sync();
		this.releaseSha = this.redis.scriptLoad(RELEASE);
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public void locked(String name, Runnable work) {
		String key = redisKey(name);
		ThreadLocalRandom random = ThreadLocalRandom.current();
		String token = Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
		while (this.redis.set(key, token, this.setArgs) == null) {
			if (!this.spinOnFailure) {
				throw new IllegalStateException("Raw floor found '" + key + "' taken; it is not meant to wait");
			}
			sleepOneMillisecond();
		}
		try {
			work.run();
		}
		finally {
			Long deleted = this.redis.evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { key }, token);
			if (deleted == null || deleted != 1L) {
				throw new IllegalStateException("Raw floor lost '" + key + "'");
			}
		}
	}

	@Override
	public String redisKey(String name) {
		return "raw:" + name;
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown(0, 2, TimeUnit.SECONDS);
	}

	private static void sleepOneMillisecond() {
		try {
			Thread.sleep(1);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while spinning", ex);
		}
	}

}
