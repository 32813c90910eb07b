/**
 * Tests of the sample application: two instances against one real {@code redis-server}.
 */
@NullMarked
package dev.distlock.sample;

import org.jspecify.annotations.NullMarked;
