package dev.distlock.aop;

import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import org.jspecify.annotations.Nullable;

/**
 * The locks one intercepted call holds.
 */
interface HeldLocks {

	/**
	 * Return the lease of the last lock taken, for {@link dev.distlock.LockContext}.
	 */
	LockLease innermost();

	/**
	 * Return a loss already known without asking Redis: a hold whose lease ran out.
	 */
	@Nullable LockLostException lossSoFar();

	/**
	 * Release every lock, in reverse order.
	 * @return the loss found, if any lock had been lost
	 */
	@Nullable LockLostException release();

}
