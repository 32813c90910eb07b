/**
 * A product catalogue in Redis, read by many at once under the shared side of a
 * read/write lock and replaced under its exclusive side.
 */
@NullMarked
package dev.distlock.sample.catalog;

import org.jspecify.annotations.NullMarked;
