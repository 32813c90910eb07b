package dev.distlock;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A distributed read/write lock: readers share it, a writer excludes readers and writers.
 * Both sides are thread-owned, reentrant {@link FencedLock}s, and every hold of either
 * side gets a fencing token from the same sequence. A writer waiting for the lock keeps
 * readers that come after it waiting too, so a stream of readers cannot starve it. The
 * write side is the lock of the same name: {@code obtain(name)} and
 * {@code readWriteLock(name).writeLock()} exclude each other. Obtained from
 * {@link LockRegistry#readWriteLock(String)}.
 *
 * <p>
 * A thread that holds the write lock may take the read lock too (and then release the
 * write lock: a downgrade); a thread that holds only the read lock cannot take the write
 * lock, which would wait for its own read share: such an upgrade throws
 * {@link IllegalMonitorStateException} instead of deadlocking.
 *
 * @since 0.1.0
 * @see LockRegistry#readWriteLock(String)
 */
public interface FencedReadWriteLock extends ReadWriteLock {

	/**
	 * Return the lock's name.
	 * @return the name given to the registry
	 */
	String name();

	/**
	 * Return the read side: held by many threads and processes at once, while no writer
	 * holds or waits for the lock ahead of them.
	 * @return the read lock
	 */
	@Override
	FencedLock readLock();

	/**
	 * Return the write side: held by one thread of one process, while nobody reads.
	 * @return the write lock
	 */
	@Override
	FencedLock writeLock();

}
