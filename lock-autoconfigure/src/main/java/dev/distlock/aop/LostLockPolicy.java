package dev.distlock.aop;

import dev.distlock.LockLostAction;
import dev.distlock.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What a locked method does when its lock was lost while it ran
 * ({@code distlock.on-lost}): throw {@link LockLostException} and stop the work still
 * running under the lock, or log it and let the work finish.
 *
 * @param onLost whether to throw or to log
 */
record LostLockPolicy(LockLostAction onLost) {

	private static final Log logger = LogFactory.getLog(LostLockPolicy.class);

	/**
	 * Apply the policy to a loss found after a method ended.
	 * @param spec the method's spec
	 * @param lost the loss, or {@code null} if none
	 * @param failure what the method threw, or {@code null} if it returned
	 * @return the exception to throw instead of the result, or {@code null} to go on
	 */
	@Nullable Throwable apply(LockSpec spec, @Nullable LockLostException lost, @Nullable Throwable failure) {
		if (lost == null) {
			return failure;
		}
		if (failure != null) {
			if (!isSameLoss(failure, lost)) {
				failure.addSuppressed(lost);
			}
			return failure;
		}
		if (this.onLost == LockLostAction.THROW) {
			return lost;
		}
		logger.warn("Lock '" + lost.getLockName() + "' of " + spec.description() + " was lost while the method ran"
				+ " (distlock.on-lost=log)", lost);
		return null;
	}

	/**
	 * Return whether a loss stops the work that still runs under the lock: a transaction
	 * does not commit, a future or reactive result fails at once. It does when the policy
	 * throws; when it logs, the work finishes, as the method's result is returned.
	 * @return whether the work stops
	 */
	boolean stopsWork() {
		return this.onLost == LockLostAction.THROW;
	}

	/**
	 * Return whether the method failed for the very loss its release found, as when the
	 * loss stopped its work: that needs no second report.
	 */
	private static boolean isSameLoss(Throwable failure, LockLostException lost) {
		return failure instanceof LockLostException known && known.getLockName().equals(lost.getLockName())
				&& known.getFencingToken() == lost.getFencingToken();
	}

}
