/**
 * The Redis connections of the lock engine:
 * {@link dev.distlock.redis.connection.LockConnection}, the narrow set of commands the
 * engine sends, and its implementations on Lettuce's own client and on Spring Data Redis,
 * made by {@link dev.distlock.redis.connection.LockConnections}. The engine itself
 * touches no driver type.
 */
@NullMarked
package dev.distlock.redis.connection;

import org.jspecify.annotations.NullMarked;
