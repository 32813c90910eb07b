package dev.distlock;

/**
 * Thrown when a lock's lease expired or was taken over while it was held: its renewal
 * failed, or its release found another holder's token. A {@link LockLostEvent} is
 * published either way.
 *
 * @since 0.1.0
 */
public class LockLostException extends DistributedLockException {

	private final String lockName;

	private final long fencingToken;

	/**
	 * Create a new exception.
	 * @param lockName the name of the lost lock
	 * @param fencingToken the fencing token of the hold that was lost
	 * @param message what happened
	 */
	public LockLostException(String lockName, long fencingToken, String message) {
		super(message);
		this.lockName = lockName;
		this.fencingToken = fencingToken;
	}

	/**
	 * Return the name of the lost lock.
	 * @return the lock name
	 */
	public String getLockName() {
		return this.lockName;
	}

	/**
	 * Return the fencing token of the hold that was lost.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

}
