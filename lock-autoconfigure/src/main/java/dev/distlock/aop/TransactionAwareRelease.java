package dev.distlock.aop;

import dev.distlock.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Releases a call's locks at once, or, when the call ran inside a transaction its caller
 * started, after that transaction completes, so that the lock still covers the commit.
 */
final class TransactionAwareRelease {

	private static final Log logger = LogFactory.getLog(TransactionAwareRelease.class);

	private static final boolean TX_PRESENT = ClassUtils.isPresent(
			"org.springframework.transaction.support.TransactionSynchronizationManager",
			TransactionAwareRelease.class.getClassLoader());

	private TransactionAwareRelease() {
	}

	/**
	 * Release the locks now or after the surrounding transaction.
	 * @return the loss found now, if any
	 */
	static @Nullable LockLostException release(CallLocks locks, LockSpec spec) {
		if (TX_PRESENT && TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCompletion(int status) {
					LockLostException lost = locks.release();
					if (lost != null) {
						logger.warn("Lock of " + spec.description()
								+ " was lost before the surrounding transaction completed", lost);
					}
				}

			});
			return locks.lossSoFar();
		}
		return locks.release();
	}

}
