/**
 * A daily report written through the {@code LockRegistry} to a store that checks fencing
 * tokens.
 */
@NullMarked
package dev.distlock.sample.report;

import org.jspecify.annotations.NullMarked;
