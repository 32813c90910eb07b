/**
 * Lease renewal and loss detection for the holds of the Redis engine: a watchdog that
 * renews the holds in watchdog mode in batches, a check per fixed lease that finds it run
 * out while held, and the {@link dev.distlock.redis.renewal.LossHandler} they tell of the
 * holds they find lost. {@link dev.distlock.redis.renewal.LeaseRenewal} is the facade;
 * the engine implements {@link dev.distlock.redis.renewal.RenewedHold} and
 * {@link dev.distlock.redis.renewal.HoldRenewer}, so this package never depends on it.
 */
@NullMarked
package dev.distlock.redis.renewal;

import org.jspecify.annotations.NullMarked;
