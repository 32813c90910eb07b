package dev.distlock.sample.accounts;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * Thrown for an account that does not exist; answered with {@code 404 Not Found}.
 */
public class UnknownAccountException extends ErrorResponseException {

	/**
	 * Create an exception.
	 * @param account the unknown account
	 */
	public UnknownAccountException(String account) {
		super(HttpStatus.NOT_FOUND,
				ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, "Unknown account '" + account + "'"), null);
	}

}
