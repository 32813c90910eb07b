package dev.distlock.aop;

import java.util.List;

import dev.distlock.LockContext;
import dev.distlock.LockLease;
import org.jspecify.annotations.Nullable;

import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Keeps a transaction that begins inside a {@link dev.distlock.DistributedLock} method
 * from committing once one of the method's locks is known lost. Told by a transaction
 * manager that it began a transaction, it looks at the locks the thread runs under
 * ({@link LockContext#leases()}) and, if there are any, registers a check with the
 * transaction that throws {@link dev.distlock.LockLostException} before the commit, so
 * that the transaction rolls back. A transaction that the caller began before the locked
 * call is checked by the interceptor itself.
 *
 * <p>
 * Add it to each transaction manager with
 * {@link org.springframework.transaction.ConfigurableTransactionManager#addListener}; the
 * auto-configuration does so for every transaction manager bean while
 * {@code distlock.on-lost} is {@code throw}.
 *
 * @since 0.1.0
 * @see DistLockInterception
 */
public class LockLossTransactionListener implements TransactionExecutionListener {

	@Override
	public void afterBegin(TransactionExecution transaction, @Nullable Throwable beginFailure) {
		if (beginFailure != null || !TransactionSynchronizationManager.isSynchronizationActive()) {
			return;
		}
		List<LockLease> leases = LockContext.leases();
		if (!leases.isEmpty()) {
			CommitGuard.register(leases);
		}
	}

}
