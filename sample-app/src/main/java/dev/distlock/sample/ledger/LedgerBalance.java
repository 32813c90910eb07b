package dev.distlock.sample.ledger;

/**
 * The balance of one ledger account, as its last post left it.
 *
 * @param account the account
 * @param balance its balance
 * @param fencingToken the fencing token of the lock the last post held
 */
public record LedgerBalance(String account, long balance, long fencingToken) {

}
