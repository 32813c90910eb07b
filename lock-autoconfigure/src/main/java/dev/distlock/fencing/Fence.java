package dev.distlock.fencing;

import dev.distlock.DistributedLock;
import dev.distlock.LockContext;
import dev.distlock.LockLease;

/**
 * The resource side of fencing: remembers, for each resource, the highest fencing token
 * it has seen, and refuses a lower one. A holder that stalled past its lease (a long GC
 * pause, a frozen VM) still believes it holds the lock, but its token is lower than the
 * next holder's, so its late write is refused.
 *
 * <p>
 * A resource is any name the application chooses, such as {@code "report:2024-06-01"};
 * the tokens recorded for it should all come from one lock. Tokens are compared, not
 * counted: a token equal to the highest recorded is accepted, so one holder may write
 * twice.
 *
 * @since 0.1.0
 * @see LockLease#fencingToken()
 * @see JdbcFence
 * @see RedisFence
 */
public interface Fence {

	/**
	 * Record a fencing token as the highest seen for a resource, or refuse it.
	 * @param resource the resource the caller is about to write
	 * @param fencingToken the fencing token of the caller's hold
	 * @throws StaleFencingTokenException if a higher token was recorded for the resource
	 */
	void advance(String resource, long fencingToken);

	/**
	 * Record the fencing token of the current {@link DistributedLock} call (the innermost
	 * lease of {@link LockContext#currentLease()}) as the highest seen for a resource, or
	 * refuse it.
	 * @param resource the resource the caller is about to write
	 * @throws StaleFencingTokenException if a higher token was recorded for the resource
	 * @throws IllegalStateException if no {@code @DistributedLock} method runs on this
	 * thread
	 */
	default void advance(String resource) {
		advance(resource, CurrentLease.fencingToken("advance(\"" + resource + "\")"));
	}

}
