package dev.distlock;

import java.time.Duration;
import java.util.Optional;

/**
 * A distributed counting semaphore: at most {@link #permits()} holders across all
 * processes at any time. Each permit is a {@link LockLease}: owned by no thread,
 * releasable from any thread, renewed by the watchdog, fenced (tokens of one sequence per
 * semaphore), and given back when its holder dies, once its lease runs out. Waiters get
 * permits in the order they came. Obtained from
 * {@link LockRegistry#semaphore(String, int)}.
 *
 * @since 0.1.0
 * @see LockRegistry#semaphore(String, int)
 */
public interface DistributedSemaphore {

	/**
	 * Return the semaphore's name.
	 * @return the name given to the registry
	 */
	String name();

	/**
	 * Return how many permits this semaphore gives at most.
	 * @return the number of permits
	 */
	int permits();

	/**
	 * Take one permit, waiting at most the given time.
	 * @param waitTime how long to wait; zero tries once
	 * @return the permit, to be released from any thread
	 * @throws LockAcquisitionException if no permit was taken in time, or interrupted
	 */
	default LockLease acquire(Duration waitTime) {
		return tryAcquire(waitTime).orElseThrow(() -> new LockAcquisitionException(name(),
				"No permit of semaphore '" + name() + "' was taken within " + waitTime, null));
	}

	/**
	 * Take one permit, waiting at most the given time.
	 * @param waitTime how long to wait; zero tries once
	 * @return the permit, or empty if none was taken in time
	 * @throws LockAcquisitionException if interrupted while waiting
	 */
	Optional<LockLease> tryAcquire(Duration waitTime);

}
