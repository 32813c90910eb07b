/**
 * A {@code @Scheduled} job that runs on one instance at a time.
 */
@NullMarked
package dev.distlock.sample.cleanup;

import org.jspecify.annotations.NullMarked;
