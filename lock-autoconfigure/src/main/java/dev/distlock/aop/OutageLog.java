package dev.distlock.aop;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.DistributedLockException;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockKeyException;
import dev.distlock.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells which acquisition failures are Redis failing, and logs an outage once for all the
 * calls of one interceptor: one warning when a method with {@code onFailure = SKIP} is
 * first skipped because Redis failed, one message when an acquisition next gets an answer
 * from Redis. Thread-safe.
 */
final class OutageLog {

	private static final Log logger = LogFactory.getLog(LockingInterceptor.class);

	private final AtomicBoolean down = new AtomicBoolean();

	private final String methods;

	/**
	 * Create a log of the outages seen by the methods of one annotation.
	 * @param annotation the annotation
	 */
	OutageLog(LockingAnnotation annotation) {
		this.methods = annotation.displayName() + " methods";
	}

	/**
	 * Tell whether a failed acquisition is skipped as Redis being down, logging the start
	 * of the outage if it is the first. Redis failed when the registry threw a
	 * {@link DistributedLockException} other than a bad key, an interrupted wait or a
	 * thread's own hold known lost, which it re-entered.
	 * @param failure what the acquisition threw
	 * @return whether Redis failed
	 */
	boolean isOutage(RuntimeException failure) {
		boolean redisFailed = failure instanceof DistributedLockException && !(failure instanceof LockKeyException)
				&& !(failure instanceof LockAcquisitionException) && !(failure instanceof LockLostException)
				&& !Thread.currentThread().isInterrupted();
		if (redisFailed && this.down.compareAndSet(false, true)) {
			logger.warn("Redis is unreachable; " + this.methods
					+ " with onFailure = SKIP are skipped until it answers: " + failure.getMessage());
		}
		return redisFailed;
	}

	/**
	 * Record that Redis answered an acquisition, logging the end of an outage if one was
	 * logged.
	 */
	void answered() {
		if (this.down.get() && this.down.compareAndSet(true, false)) {
			logger.info("Redis answers again; " + this.methods + " with onFailure = SKIP run again");
		}
	}

}
