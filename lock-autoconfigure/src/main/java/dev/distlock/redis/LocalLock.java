package dev.distlock.redis;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What one JVM knows of one lock: a fair permit that queues this JVM's threads so that
 * only one of them at a time tries to acquire it in Redis, and that thread's offer to
 * take a hold handed over by a local holder.
 */
final class LocalLock {

	final LockId id;

	/** Taken by the thread of this JVM that is trying to acquire the lock in Redis. */
	final Semaphore permit = new Semaphore(1, true);

	/** The waiting thread's offer to take a handed-over hold, if it made one. */
	final AtomicReference<Handoff> waiter = new AtomicReference<>();

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
