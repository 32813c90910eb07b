package dev.distlock.sample.accounts;

/**
 * A completed transfer.
 *
 * @param amount the amount moved
 * @param from the debited account's balance afterwards
 * @param to the credited account's balance afterwards
 */
public record Transfer(long amount, Balance from, Balance to) {

}
