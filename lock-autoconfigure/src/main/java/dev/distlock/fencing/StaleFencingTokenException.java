package dev.distlock.fencing;

import dev.distlock.DistributedLockException;

/**
 * Thrown by a {@link Fence} that refuses a fencing token because a higher one was
 * recorded for the resource already: the caller's lock was lost, and a later holder has
 * written since. The caller must not write; a {@link JdbcFence} caller's transaction
 * rolls back when this exception leaves it.
 *
 * @since 0.1.0
 * @see Fence#advance(String, long)
 */
public class StaleFencingTokenException extends DistributedLockException {

	private final String resource;

	private final long fencingToken;

	private final long highestToken;

	/**
	 * Create a new exception.
	 * @param resource the resource whose fence refused the token
	 * @param fencingToken the refused token
	 * @param highestToken the higher token recorded for the resource
	 */
	public StaleFencingTokenException(String resource, long fencingToken, long highestToken) {
		super("Fencing token " + fencingToken + " for resource '" + resource + "' is stale: token " + highestToken
				+ " was recorded already, so the lock this token belongs to was lost and a later holder has written");
		this.resource = resource;
		this.fencingToken = fencingToken;
		this.highestToken = highestToken;
	}

	/**
	 * Return the resource whose fence refused the token.
	 * @return the resource name
	 */
	public String getResource() {
		return this.resource;
	}

	/**
	 * Return the refused fencing token.
	 * @return the token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * Return the highest token recorded for the resource, which is greater than the
	 * refused one.
	 * @return the highest token
	 */
	public long getHighestToken() {
		return this.highestToken;
	}

}
