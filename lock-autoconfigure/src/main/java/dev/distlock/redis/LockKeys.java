package dev.distlock.redis;

import dev.distlock.LockName;

import org.springframework.util.Assert;

/**
 * Maps lock names to Redis keys.
 *
 * <p>
 * A lock name becomes {@code <key-prefix><name>}, nothing else added; how key values are
 * encoded into names is {@link LockName}'s.
 *
 * <p>
 * The character {@code !} ({@link LockName#RESERVED}) is reserved for the keys of a
 * lock's helpers, such as its fencing key: {@code <lock key>!<role>} when the lock key
 * carries a hash tag, otherwise {@code {<lock key>}!<role>}, in the lock key's Cluster
 * hash slot either way. Lock names ({@link LockName#of}) and key prefixes
 * ({@link #checkPrefix}) must not contain it and encoded key values never do, so no lock
 * key is ever a helper key.
 *
 * @since 0.1.0
 */
public final class LockKeys {

	private static final String FENCE = "fence";

	/** The role of the helper key that orders a lock's waiters. */
	static final String QUEUE = "queue";

	/** The role of the helper key that holds the entries of a lock's waiters. */
	static final String WAITERS = "waiters";

	/**
	 * The role of the helper key that holds the shares of a read/write lock's readers.
	 */
	static final String READERS = "readers";

	/** The role of the helper key that holds the permits taken of a semaphore. */
	static final String PERMITS = "permits";

	/**
	 * The role of the helper key that marks the tokens given back of a lock's attempts
	 * for a while, so that an attempt reaching Redis after its give-back takes nothing.
	 */
	static final String GIVEN_BACK = "given-back";

	private final String prefix;

	/**
	 * Create a mapping with the given key prefix.
	 * @param prefix the prefix of every lock key, such as {@code lock:}
	 */
	public LockKeys(String prefix) {
		Assert.notNull(prefix, "'prefix' must not be null");
		this.prefix = prefix;
	}

	/**
	 * Return the Redis key of the lock with the given name.
	 * @param name the lock name
	 * @return {@code <key-prefix><name>}
	 */
	public String lockKey(String name) {
		Assert.hasLength(name, "'name' must not be empty");
		return this.prefix + name;
	}

	/**
	 * Check that a key prefix does not contain {@code !}, which only helper keys use.
	 * @param prefix the prefix of every lock key
	 * @throws IllegalArgumentException if the prefix contains {@code !}
	 */
	public static void checkPrefix(String prefix) {
		checkUnreserved("Key prefix", prefix);
	}

	/**
	 * Return the key of the fencing key of the given lock key: its helper key of role
	 * {@code fence}.
	 * @param lockKey the lock key
	 * @return the fencing key
	 * @throws IllegalArgumentException if the key has a {@code '}'} outside a hash tag
	 * @see #helperKey(String, String)
	 */
	public static String fenceKey(String lockKey) {
		return helperKey(lockKey, FENCE);
	}

	/**
	 * Return the key of one of a lock's helpers: {@code <lock key>!<role>} when the lock
	 * key carries a hash tag, otherwise {@code {<lock key>}!<role>}. Either way it is in
	 * the lock key's Cluster slot, and it is no lock key, since lock keys never contain
	 * {@code !}.
	 * @param lockKey the lock key
	 * @param role what the helper is for, such as {@code fence}
	 * @return the helper's key
	 * @throws IllegalArgumentException if the key has a {@code '}'} outside a hash tag,
	 * which leaves no key name that shares its slot
	 */
	public static String helperKey(String lockKey, String role) {
		if (hasHashTag(lockKey)) {
			return lockKey + LockName.RESERVED + role;
		}
		Assert.isTrue(lockKey.indexOf('}') < 0, () -> "Lock key '" + lockKey
				+ "' contains '}' outside a hash tag; remove it so that the lock's helper keys, such as its fencing key, can share its Cluster slot");
		return "{" + lockKey + "}" + LockName.RESERVED + role;
	}

	/**
	 * Return what decides a key's Cluster slot: the text of its hash tag, or the whole
	 * key when it has none. {@code {<slot tag>}} at the start of another key puts that
	 * key in the same slot, unless the slot tag contains a {@code '}'}.
	 * @param key the key
	 * @return its slot tag
	 */
	public static String slotTag(String key) {
		if (!hasHashTag(key)) {
			return key;
		}
		int open = key.indexOf('{');
		return key.substring(open + 1, key.indexOf('}', open + 1));
	}

	private static void checkUnreserved(String description, String value) {
		Assert.isTrue(value.indexOf(LockName.RESERVED) < 0, () -> description + " '" + value + "' contains '"
				+ LockName.RESERVED + "', which is reserved for distlock's helper keys");
	}

	private static boolean hasHashTag(String key) {
		int open = key.indexOf('{');
		if (open < 0) {
			return false;
		}
		int close = key.indexOf('}', open + 1);
		return close > open + 1;
	}

}
