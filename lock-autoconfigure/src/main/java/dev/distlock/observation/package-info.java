/**
 * Micrometer Observations of locks: {@code distlock.wait}, a caller's wait for a lock,
 * and {@code distlock.hold}, a hold from its acquisition to its release, as spans with
 * Micrometer Tracing and as distlock's meters with
 * {@link dev.distlock.observation.LockMeterObservationHandler}.
 */
@NullMarked
package dev.distlock.observation;

import org.jspecify.annotations.NullMarked;
