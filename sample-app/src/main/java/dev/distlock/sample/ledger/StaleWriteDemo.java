package dev.distlock.sample.ledger;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.distlock.LeaseOptions;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.fencing.JdbcFence;
import dev.distlock.fencing.StaleFencingTokenException;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.stereotype.Component;

/**
 * Shows the {@link JdbcFence} refusing the late post of a holder that stalled past its
 * lease. It takes an account's lock through the {@link LockRegistry} with a fixed lease
 * of 300 ms and stalls, as in a long GC pause, while another thread of the application
 * posts to the account the usual way ({@link Ledger#post(String, long)}): that post waits
 * for the stalled lease to run out, takes the lock and commits. The stalled holder, which
 * does not know that it lost the lock, then posts with its fencing token, lower than the
 * newer holder's: the fence refuses it with {@link StaleFencingTokenException}, its
 * transaction rolls back, and the newer post stands.
 */
@Component
class StaleWriteDemo {

	private static final Duration LEASE = Duration.ofMillis(300);

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final LockRegistry locks;

	private final Ledger ledger;

	private final AsyncTaskExecutor executor;

	StaleWriteDemo(LockRegistry locks, Ledger ledger,
			@Qualifier(TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME) AsyncTaskExecutor executor) {
		this.locks = locks;
		this.ledger = ledger;
		this.executor = executor;
	}

	/**
	 * Let a stalled holder and a newer one post the same amount to an account.
	 * @param account the account
	 * @param amount the amount each holder posts
	 * @return the balance after the stalled holder's post, had the fence let it through
	 * @throws StaleFencingTokenException when the fence refuses the stalled holder's
	 * post, as it should
	 */
	LedgerBalance run(String account, long amount) {
		try (LockLease stalled = shortLease(Ledger.lockName(account))) {
			// Stalled: meanwhile the lease runs out, and a newer holder posts
			this.executor.submitCompletable(() -> this.ledger.post(account, amount))
				.orTimeout(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
				.join();
			return this.ledger.post(account, amount, stalled.fencingToken());
		}
	}

	private LockLease shortLease(String lock) {
		return this.locks.tryAcquire(lock, TIMEOUT, LeaseOptions.fixed(LEASE))
			.orElseThrow(() -> new LockAcquisitionException(lock,
					"Lock '" + lock + "' was not acquired within " + TIMEOUT, null));
	}

}
