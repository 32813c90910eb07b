package dev.distlock.sample.ledger;

import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code ledger_balance} table ({@code schema.sql}): one row per account.
 */
@Repository
class LedgerTable {

	private final JdbcClient jdbc;

	LedgerTable(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Read an account's row.
	 * @param account the account
	 * @return its balance, or empty if nothing was posted to it
	 */
	Optional<LedgerBalance> find(String account) {
		return this.jdbc.sql("SELECT account, balance, fencing_token FROM ledger_balance WHERE account = ?")
			.param(account)
			.query(LedgerBalance.class)
			.optional();
	}

	/**
	 * Write an account's row, inserting it on the account's first post.
	 * @param balance the account's new balance
	 */
	void save(LedgerBalance balance) {
		int updated = this.jdbc.sql("UPDATE ledger_balance SET balance = ?, fencing_token = ? WHERE account = ?")
			.params(balance.balance(), balance.fencingToken(), balance.account())
			.update();
		if (updated == 0) {
			this.jdbc.sql("INSERT INTO ledger_balance (account, balance, fencing_token) VALUES (?, ?, ?)")
				.params(balance.account(), balance.balance(), balance.fencingToken())
				.update();
		}
	}

}
