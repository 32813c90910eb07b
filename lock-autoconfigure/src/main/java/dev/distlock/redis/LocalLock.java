package dev.distlock.redis;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What one JVM knows of one lock: a fair permit that queues this JVM's threads so that
 * only one of them at a time tries to acquire it in Redis, that thread's offer to take a
 * hold handed over by a local holder, and the hold this JVM has of it, if any.
 */
final class LocalLock {

	final LockId id;

	/** Taken by the thread of this JVM that is trying to acquire the lock in Redis. */
	final Semaphore permit = new Semaphore(1, true);

	/** The waiting thread's offer to take a handed-over hold, if it made one. */
	final AtomicReference<Handoff> waiter = new AtomicReference<>();

	/**
	 * The hold of this JVM, from its acquisition until its release in Redis (a hand-over
	 * replaces it with the next hold): while it is valid, this JVM's waiter waits for it
	 * here rather than in the lock's queue in Redis.
	 */
	final AtomicReference<RedisHold> holder = new AtomicReference<>();

	/** Callers using this entry; guarded by {@link LocalLocks}. */
	int users;

	/**
	 * Hand-overs in a row without a release in Redis, so that other JVMs get their turn.
	 */
	volatile int handoffs;

	LocalLock(LockId id) {
		this.id = id;
	}

}
