/**
 * The threads distlock starts for itself: named daemon threads, and virtual threads on
 * any JDK it runs on. Shared by the engine and its Redis connections; not an API for
 * applications.
 */
@NullMarked
package dev.distlock.thread;

import org.jspecify.annotations.NullMarked;
