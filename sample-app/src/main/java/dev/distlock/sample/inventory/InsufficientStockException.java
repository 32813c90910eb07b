package dev.distlock.sample.inventory;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * Thrown when a reservation asks for more than is left; answered with
 * {@code 409 Conflict}.
 */
public class InsufficientStockException extends ErrorResponseException {

	/**
	 * Create an exception.
	 * @param sku the SKU
	 * @param stock how many are left
	 * @param quantity how many were asked for
	 */
	public InsufficientStockException(String sku, long stock, int quantity) {
		super(HttpStatus.CONFLICT, ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
				"Cannot reserve " + quantity + " of '" + sku + "': " + stock + " left"), null);
	}

}
