package dev.distlock.observation;

/**
 * How a wait for a lock, or a hold of one, ended: the {@code result} key of the
 * observations.
 *
 * @since 0.1.0
 */
public enum LockObservationResult {

	/** The wait ended with the lock acquired. */
	ACQUIRED("acquired"),

	/** The wait ended without the lock: not acquired within the wait time. */
	FAILED("failed"),

	/**
	 * The wait ended by a failure: Redis could not be reached, or the caller was
	 * interrupted.
	 */
	ERROR("error"),

	/** The hold was released while still held. */
	RELEASED("released"),

	/** The hold was lost before its release. */
	LOST("lost");

	private final String value;

	LockObservationResult(String value) {
		this.value = value;
	}

	/**
	 * Return the result as the observations' key value has it.
	 * @return the value, such as {@code acquired}
	 */
	public String value() {
		return this.value;
	}

}
