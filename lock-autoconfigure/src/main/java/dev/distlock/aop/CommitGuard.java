package dev.distlock.aop;

import java.util.List;

import dev.distlock.LockLease;
import dev.distlock.LockLostException;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Keeps a transaction from committing once a lock it runs under is known lost: before the
 * commit it checks that every lease is still {@linkplain LockLease#isValid() valid}, and
 * throws {@link LockLostException} otherwise, which rolls the transaction back and is
 * what its caller gets from the commit.
 */
final class CommitGuard implements TransactionSynchronization {

	private final List<LockLease> leases;

	private CommitGuard(List<LockLease> leases) {
		this.leases = List.copyOf(leases);
	}

	/**
	 * Guard the commit of the transaction active on the current thread.
	 * @param leases the leases it runs under
	 */
	static void register(List<LockLease> leases) {
		TransactionSynchronizationManager.registerSynchronization(new CommitGuard(leases));
	}

	@Override
	public void beforeCommit(boolean readOnly) {
		for (LockLease lease : this.leases) {
			if (!lease.isValid()) {
				throw new LockLostException(lease.name(), lease.fencingToken(),
						"Lock '" + lease.name() + "' (fencing token " + lease.fencingToken()
								+ ") was lost before the transaction committed; the transaction is rolled back");
			}
		}
	}

}
