/**
 * A daily report written through the {@code LockRegistry} and distlock's
 * {@code RedisFence}, which refuses the write of a holder that lost its lock.
 */
@NullMarked
package dev.distlock.sample.report;

import org.jspecify.annotations.NullMarked;
