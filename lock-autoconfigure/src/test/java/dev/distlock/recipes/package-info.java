/**
 * Tests that reproduce the failures of hand-rolled Redis lock recipes and show distlock
 * immune to them.
 */
@NullMarked
package dev.distlock.recipes;

import org.jspecify.annotations.NullMarked;
