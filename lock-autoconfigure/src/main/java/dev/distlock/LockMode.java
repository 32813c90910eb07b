package dev.distlock;

/**
 * Which side of a lock's name a {@code @DistributedLock} method takes.
 *
 * @since 0.1.0
 * @see DistributedLock#mode()
 */
public enum LockMode {

	/**
	 * The lock itself, which is also the write side of the read/write lock of the same
	 * name: one holder at a time.
	 */
	EXCLUSIVE,

	/**
	 * The read side of the read/write lock of the name: shared with other readers,
	 * excluded by a writer.
	 * @see LockRegistry#readWriteLock(String)
	 */
	SHARED

}
