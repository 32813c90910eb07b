/**
 * A ledger of balances in the application's database, written under a
 * {@code @DistributedLock} and fenced by distlock's {@code JdbcFence} in the same
 * transaction.
 */
@NullMarked
package dev.distlock.sample.ledger;

import org.jspecify.annotations.NullMarked;
