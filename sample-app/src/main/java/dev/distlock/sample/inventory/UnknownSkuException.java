package dev.distlock.sample.inventory;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * Thrown for a SKU that was never stocked; answered with {@code 404 Not Found}.
 */
public class UnknownSkuException extends ErrorResponseException {

	/**
	 * Create an exception.
	 * @param sku the unknown SKU
	 */
	public UnknownSkuException(String sku) {
		super(HttpStatus.NOT_FOUND, ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, "Unknown SKU '" + sku + "'"),
				null);
	}

}
