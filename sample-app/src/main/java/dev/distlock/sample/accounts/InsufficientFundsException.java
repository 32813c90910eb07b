package dev.distlock.sample.accounts;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * Thrown when a transfer asks for more than the debited account holds; answered with
 * {@code 409 Conflict}.
 */
public class InsufficientFundsException extends ErrorResponseException {

	/**
	 * Create an exception.
	 * @param account the debited account
	 * @param balance its balance
	 * @param amount the amount asked for
	 */
	public InsufficientFundsException(String account, long balance, long amount) {
		super(HttpStatus.CONFLICT, ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
				"Cannot move " + amount + " from '" + account + "': balance " + balance), null);
	}

}
