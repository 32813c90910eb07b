package dev.distlock.sample.web;

import dev.distlock.fencing.StaleFencingTokenException;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns a write that a fence refused ({@link StaleFencingTokenException}: the writer lost
 * its lock and a later holder wrote) into a {@code 409 Conflict} problem detail naming
 * the resource, the refused fencing token and the higher one recorded. It comes before
 * {@link ServiceUnavailableAdvice}, which answers every other lock exception.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
class StaleWriteAdvice {

	@ExceptionHandler
	ProblemDetail staleWrite(StaleFencingTokenException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
		problem.setProperty("resource", ex.getResource());
		problem.setProperty("fencingToken", ex.getFencingToken());
		problem.setProperty("highestToken", ex.getHighestToken());
		return problem;
	}

}
