/**
 * The Redis engine behind {@link dev.distlock.LockRegistry}: Lua scripts run through
 * Lettuce, release signals over pub/sub, JVM-local queueing and the lease watchdog.
 */
@NullMarked
package dev.distlock.redis;

import org.jspecify.annotations.NullMarked;
