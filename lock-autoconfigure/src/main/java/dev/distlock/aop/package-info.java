/**
 * Interception of {@link dev.distlock.DistributedLock},
 * {@link dev.distlock.DistributedConcurrencyLimit} and {@link dev.distlock.LeaderOnly}
 * methods: {@link dev.distlock.aop.DistLockInterception}, the one entry point, builds an
 * advisor for each annotation, whose method interceptor resolves the specification once
 * per method, and checks every annotated method at startup.
 */
@NullMarked
package dev.distlock.aop;

import org.jspecify.annotations.NullMarked;
