/**
 * Interception of {@link dev.distlock.DistributedLock} methods: an advisor, its method
 * interceptor, and the lock specification resolved once per method.
 */
@NullMarked
package dev.distlock.aop;

import org.jspecify.annotations.NullMarked;
