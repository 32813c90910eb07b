package dev.distlock.redis;

import java.util.concurrent.Semaphore;

import org.jspecify.annotations.Nullable;

/**
 * What one JVM knows of one lock: a fair permit that queues this JVM's threads so that only
 * one of them at a time tries to acquire it in Redis, and which thread (if any) owns the
 * current hold.
 */
final class LocalLock {

	final String name;

	final String key;

	final String fenceKey;

	/** Taken by the thread of this JVM that is trying to acquire the lock in Redis. */
	final Semaphore permit = new Semaphore(1, true);

	/** Callers using this entry; guarded by {@link LocalLocks}. */
	int users;

	/** Thread that owns the current hold; {@code null} for a lease or when not held. */
	volatile @Nullable Thread owner;

	/** Reentry count of the owner; read and written by the owner only. */
	int holdCount;

	/** The owner's hold; read and written by the owner only. */
	@Nullable RedisHold ownedHold;

	LocalLock(String name, String key) {
		this.name = name;
		this.key = key;
		this.fenceKey = LockKeys.fenceKey(key);
	}

	boolean isOwnedByCurrentThread() {
		return this.owner == Thread.currentThread();
	}

}
