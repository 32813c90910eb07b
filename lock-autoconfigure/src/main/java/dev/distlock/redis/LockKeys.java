package dev.distlock.redis;

import dev.distlock.HoldKind;
import dev.distlock.LockName;
import dev.distlock.keys.ClusterSlots;

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
 * lock's helpers, such as its fencing key ({@link #helperKey}). Lock names
 * ({@link LockName#of}) and key prefixes ({@link LockName#checkKeyPrefix}) must not
 * contain it and encoded key values never do, so no lock key is ever a helper key.
 *
 * @since 0.1.0
 */
public final class LockKeys {

	private static final String FENCE = "fence";

	/** The role of the helper key that orders a lock's waiters. */
	static final String QUEUE = "queue";

	/** The role of the helper key that holds the entries of a lock's waiters. */
	static final String WAITERS = "waiters";

	/** The role of the helper key that holds a read/write lock's read shares. */
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
		if (ClusterSlots.hasHashTag(lockKey)) {
			return lockKey + LockName.RESERVED + role;
		}
		Assert.isTrue(lockKey.indexOf('}') < 0, () -> "Lock key '" + lockKey
				+ "' contains '}' outside a hash tag; remove it so that the lock's helper keys, such as its fencing key, can share its Cluster slot");
		return "{" + lockKey + "}" + LockName.RESERVED + role;
	}

	/**
	 * Return the key a hold of the given kind is kept under: an exclusive hold is the
	 * lock key holding its token; a shared hold is its token's entry in a set of holders
	 * beside the lock key (a sorted set scored by each entry's expiry in server
	 * milliseconds), which many holders share.
	 * @param id the lock, read/write lock or semaphore held
	 * @param kind the kind of hold
	 */
	static String heldKey(LockId id, HoldKind kind) {
		return switch (kind) {
			case EXCLUSIVE -> id.key;
			case READ_SHARE -> helperKey(id.key, READERS);
			case PERMIT -> helperKey(id.key, PERMITS);
		};
	}

}
