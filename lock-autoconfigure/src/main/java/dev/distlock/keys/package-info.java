/**
 * The rules of Redis key names that the engine and the fencing kit both follow, so that
 * neither depends on the other: Redis Cluster's hash tags.
 */
@NullMarked
package dev.distlock.keys;

import org.jspecify.annotations.NullMarked;
