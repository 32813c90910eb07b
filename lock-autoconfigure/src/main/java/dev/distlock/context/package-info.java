/**
 * Carriers of {@link dev.distlock.LockContext} across threads: a Kotlin coroutine context
 * element, and an accessor for the context-propagation library.
 */
@NullMarked
package dev.distlock.context;

import org.jspecify.annotations.NullMarked;
