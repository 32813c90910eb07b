package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.distlock.DistributedLockException;

/**
 * Waits for Redis' replies within the command timeout, turning a timeout or an error into
 * {@link DistributedLockException}.
 */
final class Replies {

	private final Duration timeout;

	private final Duration grace;

	/**
	 * Create the waits for the replies of one connection.
	 * @param timeout the command timeout
	 * @param grace how much longer than the command timeout to wait: for replies that
	 * fail on their own in time, with a failure that says more, so that a late timer on a
	 * busy machine does not take that failure's place
	 */
	Replies(Duration timeout, Duration grace) {
		this.timeout = timeout;
		this.grace = grace;
	}

	/**
	 * Wait for a reply within the command timeout, cancelling the command when none came.
	 * @param what the operation, for the error message
	 * @param interruptible whether an interrupt ends the wait with a failure, keeping the
	 * thread's interrupt flag; otherwise the wait goes on and the flag is set again
	 * afterwards: for commands whose effect must be known, such as a release
	 */
	<T> T await(CompletableFuture<T> reply, String what, boolean interruptible) {
		long deadline = System.nanoTime() + this.timeout.plus(this.grace).toNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return reply.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					interrupted = true;
					if (interruptible) {
						reply.cancel(true);
						throw new DistributedLockException("Interrupted while waiting for Redis to " + what, ex);
					}
				}
			}
		}
		catch (TimeoutException ex) {
			reply.cancel(true);
			throw new DistributedLockException(
					"Redis did not answer within " + this.timeout + " to " + what + " (spring.data.redis.timeout)", ex);
		}
		catch (ExecutionException | CancellationException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new DistributedLockException("Redis failed to " + what + ": " + cause.getMessage(), cause);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
