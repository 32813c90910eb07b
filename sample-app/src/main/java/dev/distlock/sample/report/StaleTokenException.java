package dev.distlock.sample.report;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * Thrown by the {@link FencedStore} when a write carries an older fencing token than the
 * entry was already written with: the writer lost its lock; answered with
 * {@code 409 Conflict}.
 */
public class StaleTokenException extends ErrorResponseException {

	private final long fencingToken;

	private final long highestToken;

	/**
	 * Create an exception.
	 * @param key the entry's Redis key
	 * @param fencingToken the rejected token
	 * @param highestToken the token the entry was written with
	 */
	public StaleTokenException(String key, long fencingToken, long highestToken) {
		super(HttpStatus.CONFLICT, ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, "Rejected the write to '" + key
				+ "' with fencing token " + fencingToken + ": it was written with " + highestToken), null);
		this.fencingToken = fencingToken;
		this.highestToken = highestToken;
	}

	/**
	 * Return the rejected token.
	 * @return the writer's fencing token
	 */
	public long fencingToken() {
		return this.fencingToken;
	}

	/**
	 * Return the token the entry had been written with.
	 * @return the highest token
	 */
	public long highestToken() {
		return this.highestToken;
	}

}
