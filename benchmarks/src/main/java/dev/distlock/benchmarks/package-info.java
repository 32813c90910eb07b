/**
 * Comparative benchmarks of distlock against a raw Lettuce floor, Redisson and Spring
 * Integration.
 */
@NullMarked
package dev.distlock.benchmarks;

import org.jspecify.annotations.NullMarked;
