package dev.distlock.redis;

import dev.distlock.LockName;

/**
 * Which lock a view or a hold is of: its name, its Redis key, the key of its fencing
 * counter and the keys of its wait queue. Built once per name the registry is given,
 * which checks that the key leaves room for the helper keys in its Cluster slot.
 */
final class LockId {

	final LockName name;

	final String key;

	final String fenceKey;

	/** The keys of every script that may grant the lock: lock, fence and wait queue. */
	final String[] grantKeys;

	LockId(LockName name, String key) {
		this.name = name;
		this.key = key;
		this.fenceKey = LockKeys.fenceKey(key);
		this.grantKeys = new String[] { key, this.fenceKey, LockKeys.helperKey(key, LockKeys.QUEUE),
				LockKeys.helperKey(key, LockKeys.WAITERS) };
	}

}
