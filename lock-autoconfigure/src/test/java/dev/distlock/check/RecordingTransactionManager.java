package dev.distlock.check;

import dev.distlock.LockContext;

import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * A transaction manager with no resource behind it, for the annotated method that runs
 * its critical section in a transaction: it records {@code COMMIT} with the hold the
 * transaction ran under and the moment its commit began, before distlock's check of the
 * locks, so that the checker can tell whether a commit went through after its hold had
 * been reported lost.
 */
final class RecordingTransactionManager extends AbstractPlatformTransactionManager {

	private final History history;

	RecordingTransactionManager(History history) {
		this.history = history;
	}

	@Override
	protected Object doGetTransaction() {
		return new CommitStart();
	}

	@Override
	protected void doBegin(Object transaction, TransactionDefinition definition) {
	}

	@Override
	protected void prepareForCommit(DefaultTransactionStatus status) {
		((CommitStart) status.getTransaction()).at = History.now();
	}

	@Override
	protected void doCommit(DefaultTransactionStatus status) {
		RecordedLease lease = (RecordedLease) LockContext.currentLease().orElseThrow();
		this.history.record("COMMIT", "hold", lease.hold().id(), "start", ((CommitStart) status.getTransaction()).at,
				"end", History.now());
	}

	@Override
	protected void doRollback(DefaultTransactionStatus status) {
	}

	/**
	 * When a transaction's commit began, in microseconds.
	 */
	private static final class CommitStart {

		long at;

	}

}
