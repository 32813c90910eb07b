package dev.distlock.test;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * What a Redis server would keep for distlock, kept in the JVM: the holds of every lock
 * and semaphore name, their fencing tokens and their waiters. Every
 * {@link InMemoryLockRegistry} on one store stands for one application instance of a
 * deployment sharing one Redis: their locks exclude each other, their waiters queue
 * together, their fencing tokens count up together. One thread watches the leases that
 * run out, and reports their holds lost when they do.
 *
 * @since 0.1.0
 */
public final class InMemoryLockStore implements AutoCloseable {

	private final ConcurrentMap<String, InMemorySlot> locks = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, InMemorySlot> semaphores = new ConcurrentHashMap<>();

	private final ScheduledThreadPoolExecutor leaseEnds;

	/**
	 * Create an empty store.
	 */
	public InMemoryLockStore() {
		CustomizableThreadFactory threads = new CustomizableThreadFactory("distlock-in-memory-leases-");
		threads.setDaemon(true);
		this.leaseEnds = new ScheduledThreadPoolExecutor(1, threads);
		this.leaseEnds.setRemoveOnCancelPolicy(true);
	}

	/**
	 * Return how long the lock of the given name stays taken, whoever holds it: while a
	 * writer, a lease or a reader holds it, or while it is kept after a release for its
	 * minimum hold time or after a lease ran out for its lock delay. A lease renewed by
	 * its registry has a whole lease left.
	 * @param name the lock's name
	 * @return how long it stays taken, or empty when it is free
	 */
	public Optional<Duration> remainingLease(String name) {
		InMemorySlot slot = this.locks.get(name);
		return (slot != null) ? slot.remainingLease() : Optional.empty();
	}

	/**
	 * Make every hold of the named lock (its write hold or its read shares) and of the
	 * named semaphore lost now, as if their leases ran out while their holders did not
	 * notice: each is no longer valid, its loss is reported to its registry's listeners
	 * and loss actions, its release throws {@link dev.distlock.LockLostException}, and
	 * the name is free at once, whatever its minimum hold time or lock delay.
	 * @param name the name of a lock or a semaphore
	 * @return the fencing token of the last hold of the lock, or empty if nobody held it
	 */
	public OptionalLong expire(String name) {
		String reason = "its lease was made to run out at once";
		InMemorySlot semaphore = this.semaphores.get(name);
		if (semaphore != null) {
			semaphore.expireAll(reason);
		}
		InMemorySlot lock = this.locks.get(name);
		return (lock != null) ? lock.expireAll(reason) : OptionalLong.empty();
	}

	/**
	 * Stop watching leases; holds whose lease runs out after this are found lost only
	 * when they are next used.
	 */
	@Override
	public void close() {
		this.leaseEnds.shutdownNow();
	}

	InMemorySlot lock(String name) {
		return this.locks.computeIfAbsent(name, (key) -> new InMemorySlot(this));
	}

	InMemorySlot semaphore(String name) {
		return this.semaphores.computeIfAbsent(name, (key) -> new InMemorySlot(this));
	}

	void schedule(Runnable task, long delay, TimeUnit unit) {
		try {
			this.leaseEnds.schedule(task, delay, unit);
		}
		catch (RejectedExecutionException ex) {
			// Closed: a lease that runs out is found out when its hold is next used
		}
	}

}
