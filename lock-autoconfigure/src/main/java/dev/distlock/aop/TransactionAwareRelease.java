package dev.distlock.aop;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Releases a call's locks at once, or, when the call ran inside a transaction its caller
 * started, after that transaction completes, so that the lock still covers the commit.
 */
final class TransactionAwareRelease {

	private static final boolean TX_PRESENT = ClassUtils.isPresent(
			"org.springframework.transaction.support.TransactionSynchronizationManager",
			TransactionAwareRelease.class.getClassLoader());

	private TransactionAwareRelease() {
	}

	/**
	 * Release the locks now or after the surrounding transaction.
	 * @return what the release found out, or the loss known so far when it is deferred
	 */
	static ReleaseOutcome release(CallLocks locks, LockSpec spec) {
		if (TX_PRESENT && TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCompletion(int status) {
					locks.release().log(spec, "after the surrounding transaction completed");
				}

			});
			return new ReleaseOutcome(locks.lossSoFar(), null);
		}
		return locks.release();
	}

}
