/**
 * A runnable application that shows distlock's features.
 */
@NullMarked
package dev.distlock.sample;

import org.jspecify.annotations.NullMarked;
