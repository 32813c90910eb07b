/**
 * Smoke test of the comparative benchmarks.
 */
@NullMarked
package dev.distlock.benchmarks;

import org.jspecify.annotations.NullMarked;
