/**
 * Stock levels in Redis, changed under a per-SKU {@code @DistributedLock}.
 */
@NullMarked
package dev.distlock.sample.inventory;

import org.jspecify.annotations.NullMarked;
