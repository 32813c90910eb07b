package dev.distlock;

/**
 * What a hold of a lock's name is: the lock itself, a reader's share of the read/write
 * lock of the name, or a permit of the semaphore of the name. Unlike {@link LockMode},
 * which says which side of a name a {@code @DistributedLock} method takes, it names every
 * kind a registry holds.
 *
 * @since 0.1.0
 * @see HeldLock#holdKind()
 */
public enum HoldKind {

	/**
	 * A lock, or the write side of the read/write lock of its name: it excludes every
	 * other hold of the name.
	 * @see LockRegistry#obtain(String)
	 */
	EXCLUSIVE("exclusive"),

	/**
	 * One reader's share of the read side of a read/write lock: shared with other
	 * readers, excluded by a writer.
	 * @see LockRegistry#readWriteLock(String)
	 */
	READ_SHARE("shared"),

	/**
	 * One permit of a semaphore.
	 * @see LockRegistry#semaphore(String, int)
	 */
	PERMIT("permit");

	private final String label;

	HoldKind(String label) {
		this.label = label;
	}

	/**
	 * Return how the kind is shown in the list of held locks, in the Actuator endpoint
	 * and in messages: {@code exclusive}, {@code shared} or {@code permit}.
	 * @return the kind's label
	 */
	public String label() {
		return this.label;
	}

}
