package dev.distlock.sample.ledger;

import java.util.Optional;

import dev.distlock.DistributedLock;
import dev.distlock.LockContext;
import dev.distlock.LockName;
import dev.distlock.fencing.JdbcFence;
import dev.distlock.fencing.StaleFencingTokenException;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Ledger balances in the application's database, changed with a read-modify-write that
 * would lose updates without the per-account {@link DistributedLock}. The lock cannot
 * stop a holder that stalled past its lease (a long GC pause) from writing after the next
 * holder did, so every post also advances the account's {@link JdbcFence} in its
 * transaction: the fence and the row commit together, and a stale fencing token rolls the
 * post back.
 */
@Service
public class Ledger {

	/**
	 * The base name of the accounts' locks: account {@code a} is locked, and fenced, as
	 * {@code ledger:a}.
	 */
	public static final String LOCK = "ledger";

	private final JdbcFence fence;

	private final LedgerTable table;

	Ledger(JdbcFence fence, LedgerTable table) {
		this.fence = fence;
		this.table = table;
	}

	/**
	 * Return the name of an account's lock, which is also the resource its fence guards.
	 * @param account the account
	 * @return the lock name, as {@code @DistributedLock(name = LOCK, key = "#account")}
	 * names it
	 */
	public static String lockName(String account) {
		return LockName.keyed(LOCK, account).value();
	}

	/**
	 * Return the balance of an account.
	 * @param account the account
	 * @return its balance, or empty if nothing was posted to it
	 */
	public Optional<LedgerBalance> balance(String account) {
		return this.table.find(account);
	}

	/**
	 * Add an amount to the balance of an account, under its lock, waiting up to two
	 * seconds for another holder.
	 * @param account the account, opened by its first post
	 * @param amount the amount, negative to take it away
	 * @return the new balance
	 * @throws dev.distlock.LockAcquisitionException if the lock was not acquired in time
	 * @throws StaleFencingTokenException if a later holder of the lock posted first
	 */
	@DistributedLock(name = LOCK, key = "#account", waitTime = "2s")
	@Transactional
	public LedgerBalance post(String account, long amount) {
		return post(account, amount, LockContext.currentLease().orElseThrow().fencingToken());
	}

	/**
	 * Add an amount to the balance of an account as the holder of a lease on its lock
	 * ({@link #lockName(String)}) that the caller acquired from the {@code LockRegistry},
	 * in a transaction that the fence's refusal rolls back.
	 * @param account the account, opened by its first post
	 * @param amount the amount, negative to take it away
	 * @param fencingToken the fencing token of the caller's lease
	 * @return the new balance
	 * @throws StaleFencingTokenException if a later holder of the lock posted first
	 */
	@Transactional
	public LedgerBalance post(String account, long amount, long fencingToken) {
		this.fence.advance(lockName(account), fencingToken);
		long balance = this.table.find(account).map(LedgerBalance::balance).orElse(0L) + amount;
		LedgerBalance posted = new LedgerBalance(account, balance, fencingToken);
		this.table.save(posted);
		return posted;
	}

}
