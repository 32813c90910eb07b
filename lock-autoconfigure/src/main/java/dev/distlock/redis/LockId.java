package dev.distlock.redis;

import dev.distlock.LockName;

/**
 * Which lock a view or a hold is of: its name and its Redis keys. The lock is the write
 * side of the read/write lock of its name. Built once per name the registry is given,
 * which checks that the key leaves room for the helper keys in its Cluster slot.
 */
final class LockId {

	final LockName name;

	final String key;

	final String fenceKey;

	/**
	 * The keys of every script that may grant the lock or a read share of it: lock,
	 * fence, wait queue, read shares and the tokens given back.
	 */
	final String[] grantKeys;

	LockId(LockName name, String key) {
		this.name = name;
		this.key = key;
		this.fenceKey = LockKeys.fenceKey(key);
		this.grantKeys = new String[] { key, this.fenceKey, LockKeys.helperKey(key, LockKeys.QUEUE),
				LockKeys.helperKey(key, LockKeys.WAITERS), LockKeys.helperKey(key, LockKeys.READERS),
				LockKeys.helperKey(key, LockKeys.GIVEN_BACK) };
	}

}
