package dev.distlock.aop;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Releases a call's locks when the last of its parts ends: the call itself and, when it
 * was made inside a transaction its caller started, that transaction, so that the lock
 * still covers the commit. A synchronous call always ends before its caller's
 * transaction; a call whose result completes later may end before or after it, and
 * whichever ends second releases. Unless the lost-lock policy lets the work finish, that
 * transaction does not commit once one of the locks is known lost ({@link CommitGuard}).
 */
final class TransactionAwareRelease {

	private static final boolean TX_PRESENT = ClassUtils.isPresent(
			"org.springframework.transaction.support.TransactionSynchronizationManager",
			TransactionAwareRelease.class.getClassLoader());

	private final CallLocks locks;

	private final LockSpec spec;

	private final AtomicInteger partsRunning;

	private TransactionAwareRelease(CallLocks locks, LockSpec spec, int partsRunning) {
		this.locks = locks;
		this.spec = spec;
		this.partsRunning = new AtomicInteger(partsRunning);
	}

	/**
	 * Start waiting for the end of a call whose locks were just acquired, and for the end
	 * of the caller's transaction if the calling thread runs one, guarding its commit.
	 * @param locks the call's locks
	 * @param spec the method's spec
	 * @param policy whether a lost lock stops the caller's transaction from committing
	 * @return the release, to be told when the call ended
	 */
	static TransactionAwareRelease begin(CallLocks locks, LockSpec spec, LostLockPolicy policy) {
		if (!TX_PRESENT || !TransactionSynchronizationManager.isSynchronizationActive()) {
			return new TransactionAwareRelease(locks, spec, 1);
		}
		if (policy.stopsWork()) {
			CommitGuard.register(locks.leases());
		}
		TransactionAwareRelease release = new TransactionAwareRelease(locks, spec, 2);
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCompletion(int status) {
				if (release.partEnded()) {
					locks.release().log(spec, "after the surrounding transaction completed");
				}
			}

		});
		return release;
	}

	/**
	 * The call ended: release the locks now, unless the caller's transaction is still
	 * running, which then releases them when it completes.
	 * @return what the release found out, or the loss known so far when it is deferred
	 */
	ReleaseOutcome callEnded() {
		return partEnded() ? this.locks.release() : new ReleaseOutcome(this.locks.lossSoFar(), null);
	}

	private boolean partEnded() {
		return this.partsRunning.decrementAndGet() == 0;
	}

}
