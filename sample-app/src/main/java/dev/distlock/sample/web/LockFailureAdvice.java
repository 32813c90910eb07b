package dev.distlock.sample.web;

import java.time.Duration;

import dev.distlock.DistributedLockException;
import dev.distlock.LockAcquisitionException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns distlock's exceptions into HTTP answers: a lock that was not acquired in time is
 * {@code 503 Service Unavailable} with {@code Retry-After}, so that clients try again;
 * any other lock failure (Redis unreachable, a lost lock) is {@code 503} without it.
 *
 * @author distlock
 */
@RestControllerAdvice
class LockFailureAdvice {

	private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

	@ExceptionHandler
	ResponseEntity<ProblemDetail> lockNotAcquired(LockAcquisitionException ex) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, String.valueOf(RETRY_AFTER.toSeconds()))
			.body(problem("Busy", ex));
	}

	@ExceptionHandler
	ResponseEntity<ProblemDetail> lockFailed(DistributedLockException ex) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(problem("Lock failure", ex));
	}

	private static ProblemDetail problem(String title, DistributedLockException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
		problem.setTitle(title);
		return problem;
	}

}
