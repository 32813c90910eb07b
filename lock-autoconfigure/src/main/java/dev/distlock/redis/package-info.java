/**
 * The Redis engine behind {@link dev.distlock.LockRegistry}: Lua scripts run through
 * Lettuce, release signals over pub/sub and JVM-local queueing; lease renewal lives in
 * {@link dev.distlock.redis.renewal}.
 */
@NullMarked
package dev.distlock.redis;

import org.jspecify.annotations.NullMarked;
