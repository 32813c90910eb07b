package dev.distlock.fencing;

import dev.distlock.LockContext;

/**
 * The fencing token of the lease that {@link LockContext} holds for the current call.
 */
final class CurrentLease {

	private CurrentLease() {
	}

	/**
	 * Return the fencing token of the innermost lease of the current call.
	 * @param call the fence call that needs it, for the error message
	 * @return the token
	 * @throws IllegalStateException outside a {@code @DistributedLock} method
	 */
	static long fencingToken(String call) {
		return LockContext.currentLease()
			.orElseThrow(() -> new IllegalStateException(call
					+ " takes the fencing token of the @DistributedLock method that runs on this thread, and none does:"
					+ " call it inside one, or pass the fencing token of your lease"))
			.fencingToken();
	}

}
