/**
 * Leader election on any {@link dev.distlock.LockRegistry}: a leadership campaigns for
 * the lock of its name through the registry's public API, and is leader while it holds
 * it.
 */
@NullMarked
package dev.distlock.leader;

import org.jspecify.annotations.NullMarked;
