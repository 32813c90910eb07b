package dev.distlock.redis;

import dev.distlock.HoldKind;

/**
 * What one kind of shared hold tries to take: the attempt script of a read/write lock's
 * read share or a semaphore's permit, with the arguments of its own. The script includes
 * {@code shared-holds.lua} and takes the keys of {@link #keys()} and the arguments of
 * {@link RedisLockCommands#acquireShare}: the common ones, then {@code args}.
 *
 * @param id the read/write lock or semaphore: its key names the wait queue, the fencing
 * key and the set of holders
 * @param kind how the hold is kept: which set of holders its entry is in
 * @param script the attempt script
 * @param args the script's own arguments, after the common ones (a semaphore's permits)
 */
record SharedAttempt(LockId id, HoldKind kind, LuaScript script, String... args) {

	/**
	 * Return the attempt of a reader of a read/write lock (its write side is the lock of
	 * the same key).
	 * @param id the read/write lock
	 * @param writeToken the token of the write lock that the reader's own thread holds,
	 * which admits it at once (a downgrade); empty when it holds none
	 */
	static SharedAttempt read(LockId id, String writeToken) {
		return new SharedAttempt(id, HoldKind.READ_SHARE, LuaScript.READ_ACQUIRE, writeToken);
	}

	/**
	 * Return the keys of the scripts that take or release this kind of hold.
	 * @see #keysOf(LockId, HoldKind)
	 */
	String[] keys() {
		return keysOf(this.id, this.kind);
	}

	/**
	 * Return the keys of the scripts that take or release shared holds of a read/write
	 * lock or semaphore, all in its key's Cluster slot: its key, its fencing key, its
	 * wait queue's two keys, its set of holders of the given kind and its tokens given
	 * back.
	 * @param id the read/write lock or semaphore
	 * @param kind how its holds are kept
	 */
	static String[] keysOf(LockId id, HoldKind kind) {
		String[] grantKeys = id.grantKeys;
		return new String[] { grantKeys[0], grantKeys[1], grantKeys[2], grantKeys[3], LockKeys.heldKey(id, kind),
				grantKeys[5] };
	}

}
