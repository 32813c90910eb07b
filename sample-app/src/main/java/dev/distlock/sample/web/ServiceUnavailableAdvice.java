package dev.distlock.sample.web;

import java.time.Duration;

import dev.distlock.DistributedLockException;
import dev.distlock.LockAcquisitionException;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns lock and Redis failures into {@code 503 Service Unavailable} problem details: a
 * lock that was not acquired in time comes with {@code Retry-After}, so that clients try
 * again; any other lock failure (Redis unreachable, a lost lock) and a Redis command of
 * the application's own that finds Redis unreachable or silent (the plain reads) come
 * without it.
 */
@RestControllerAdvice
class ServiceUnavailableAdvice {

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

	@ExceptionHandler({ DataAccessResourceFailureException.class, QueryTimeoutException.class })
	ResponseEntity<ProblemDetail> redisUnavailable(RuntimeException ex) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(problem("Redis unavailable", ex));
	}

	private static ProblemDetail problem(String title, RuntimeException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
		problem.setTitle(title);
		return problem;
	}

}
