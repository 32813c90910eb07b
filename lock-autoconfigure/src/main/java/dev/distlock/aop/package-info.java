/**
 * Interception of {@link dev.distlock.DistributedLock},
 * {@link dev.distlock.DistributedConcurrencyLimit} and {@link dev.distlock.LeaderOnly}
 * methods: an advisor for each, its method interceptor, and the specification resolved
 * once per method.
 */
@NullMarked
package dev.distlock.aop;

import org.jspecify.annotations.NullMarked;
