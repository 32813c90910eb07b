package dev.distlock.fencing;

import java.util.List;

import dev.distlock.LockName;
import dev.distlock.keys.ClusterSlots;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * A {@link Fence} kept in Redis, for resources in Redis: besides
 * {@link #advance(String, long) advance}, it offers a
 * {@link #write(String, long, String, String) write} of a value that applies only while
 * the writer's token is the highest seen for the resource, checked and written by one Lua
 * script.
 *
 * <p>
 * The highest token of resource {@code r} is kept at the key
 * {@code <key-prefix>r!highest} ({@code lock:r!highest} with distlock's default prefix),
 * a number that never expires: a fence must outlive every holder that might still write,
 * however long it stalled. Delete the key when the resource is gone for good. No lock key
 * or lock helper key is ever such a key.
 *
 * <p>
 * A {@code write} checks and sets in one script, so the highest token it checks is kept
 * in the Cluster slot of the key it sets, on a single Redis as on a Cluster: at the
 * resource's key when that shares the written key's slot (the resource and the key carry
 * one hash tag, such as resource {@code {report}:daily} and key
 * {@code {report}:daily:rows}), otherwise beside the written key, at {@code {<the key's
 * hash tag, or the key>}<key-prefix>r!highest}
 * ({@code {report:rows}lock:report!highest}). Writes of a resource to keys of one slot,
 * and its {@code advance} when they share the resource key's slot, are fenced together;
 * to fence several keys of a resource as one, give them one hash tag.
 *
 * @since 0.1.0
 */
public class RedisFence implements Fence {

	private static final RedisScript<Long> ADVANCE = RedisScript
		.of(new ClassPathResource("advance.lua", RedisFence.class), Long.class);

	private static final String HIGHEST = LockName.RESERVED + "highest";

	private final StringRedisTemplate redis;

	private final String keyPrefix;

	/**
	 * Create a fence whose keys start with the given prefix.
	 * @param redis the Redis the fence and the guarded values are kept in
	 * @param keyPrefix the prefix of the fence's keys, distlock's lock key prefix
	 * ({@code distlock.key-prefix})
	 * @throws IllegalArgumentException if the prefix contains {@code !}
	 */
	public RedisFence(StringRedisTemplate redis, String keyPrefix) {
		Assert.notNull(redis, "'redis' must not be null");
		LockName.checkKeyPrefix(keyPrefix);
		this.redis = redis;
		this.keyPrefix = keyPrefix;
	}

	/**
	 * Record a fencing token as the highest seen for a resource, or refuse it.
	 * @param resource the resource the caller is about to write
	 * @param fencingToken the fencing token of the caller's hold
	 * @throws StaleFencingTokenException if a higher token was recorded for the resource
	 */
	@Override
	public void advance(String resource, long fencingToken) {
		run(resource, fencingToken, List.of(highestTokenKey(resource)), List.of(Long.toString(fencingToken)));
	}

	/**
	 * Set a key to a value if the writer's fencing token is at least the highest seen for
	 * a resource, and record it as the highest; otherwise leave both alone.
	 * @param resource the resource the key belongs to
	 * @param fencingToken the fencing token of the writer's hold
	 * @param key the key to set
	 * @param value its new value
	 * @throws StaleFencingTokenException if a higher token was recorded for the resource
	 * @throws IllegalArgumentException if the key is in another Cluster slot than the
	 * resource's key and has a {@code '}'} outside a hash tag, which leaves no key name
	 * for the highest token in its slot
	 */
	public void write(String resource, long fencingToken, String key, String value) {
		Assert.hasLength(key, "'key' must not be empty");
		Assert.notNull(value, "'value' must not be null");
		run(resource, fencingToken, List.of(highestTokenKey(resource, key), key),
				List.of(Long.toString(fencingToken), value));
	}

	/**
	 * Set a key to a value if the fencing token of the current {@code @DistributedLock}
	 * call is at least the highest seen for a resource, and record it as the highest;
	 * otherwise leave both alone.
	 * @param resource the resource the key belongs to
	 * @param key the key to set
	 * @param value its new value
	 * @throws StaleFencingTokenException if a higher token was recorded for the resource
	 * @throws IllegalStateException if no {@code @DistributedLock} method runs on this
	 * thread
	 * @see #advance(String)
	 */
	public void write(String resource, String key, String value) {
		write(resource, CurrentLease.fencingToken("write(\"" + resource + "\", \"" + key + "\", value)"), key, value);
	}

	private void run(String resource, long fencingToken, List<String> keys, List<String> args) {
		Long highest = this.redis.execute(ADVANCE, keys, args.toArray());
		Assert.state(highest != null, "Redis gave no reply to the fence's script: run RedisFence outside"
				+ " pipelines and Redis transactions (MULTI), which answer at their end");
		if (highest != fencingToken) {
			throw new StaleFencingTokenException(resource, fencingToken, highest);
		}
	}

	private String highestTokenKey(String resource) {
		Assert.hasLength(resource, "'resource' must not be empty");
		return this.keyPrefix + resource + HIGHEST;
	}

	/**
	 * Return the key of a resource's highest token for a write of the given key: the
	 * resource's key when it shares the written key's Cluster slot, otherwise that key
	 * after the written key's slot tag.
	 */
	private String highestTokenKey(String resource, String key) {
		String resourceKey = highestTokenKey(resource);
		int slot = ClusterSlotHashUtil.calculateSlot(key);
		if (ClusterSlotHashUtil.calculateSlot(resourceKey) == slot) {
			return resourceKey;
		}
		String besideKey = "{" + ClusterSlots.slotTag(key) + "}" + resourceKey;
		Assert.isTrue(ClusterSlotHashUtil.calculateSlot(besideKey) == slot,
				() -> "Key '" + key + "' contains '}' outside a hash tag, so the highest token of resource '" + resource
						+ "' cannot be kept in its Cluster slot; remove it, or give the key a hash tag");
		return besideKey;
	}

}
