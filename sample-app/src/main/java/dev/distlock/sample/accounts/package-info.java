/**
 * Account balances in Redis, transferred under a two-key {@code @DistributedLock}.
 */
@NullMarked
package dev.distlock.sample.accounts;

import org.jspecify.annotations.NullMarked;
