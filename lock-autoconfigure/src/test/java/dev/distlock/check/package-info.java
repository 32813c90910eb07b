/**
 * Randomized fault-schedule checker: rival JVMs lock under injected faults, record their
 * history, and a checker finds every broken promise in it.
 */
@NullMarked
package dev.distlock.check;

import org.jspecify.annotations.NullMarked;
