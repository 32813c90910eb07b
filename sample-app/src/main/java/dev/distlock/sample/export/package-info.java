/**
 * A slow export of the catalogue, of which at most a few run at once across every
 * instance, under a {@code @DistributedConcurrencyLimit}.
 */
@NullMarked
package dev.distlock.sample.export;

import org.jspecify.annotations.NullMarked;
