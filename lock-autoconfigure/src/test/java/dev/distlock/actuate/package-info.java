/**
 * Tests of distlock's metrics, endpoint and health indicator.
 */
@NullMarked
package dev.distlock.actuate;

import org.jspecify.annotations.NullMarked;
