package dev.distlock.sample.accounts;

/**
 * The balance of one account.
 *
 * @param account the account
 * @param balance its balance
 */
public record Balance(String account, long balance) {

}
