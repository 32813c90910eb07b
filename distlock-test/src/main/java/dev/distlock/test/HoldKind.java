package dev.distlock.test;

/**
 * What a hold of a name is, as {@link dev.distlock.HeldLock#kind()} names it.
 */
enum HoldKind {

	/** A lock, or the write side of a read/write lock: it excludes every other hold. */
	EXCLUSIVE("exclusive"),

	/** One reader's share of the read side of a read/write lock. */
	READ_SHARE("shared"),

	/** One permit of a semaphore. */
	PERMIT("permit");

	final String label;

	HoldKind(String label) {
		this.label = label;
	}

}
