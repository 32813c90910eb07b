package dev.distlock.redis;

import dev.distlock.LockName;

/**
 * Which lock a view or a hold is of: its name, its Redis key and the key of its fencing
 * counter. Built once per name the registry is given, which checks that the key leaves
 * room for the helper keys in its Cluster slot.
 */
final class LockId {

	final LockName name;

	final String key;

	final String fenceKey;

	LockId(LockName name, String key) {
		this.name = name;
		this.key = key;
		this.fenceKey = LockKeys.fenceKey(key);
	}

}
