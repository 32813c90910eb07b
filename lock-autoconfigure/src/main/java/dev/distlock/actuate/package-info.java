/**
 * Operations support for distlock: an Actuator endpoint and a health indicator.
 */
@NullMarked
package dev.distlock.actuate;

import org.jspecify.annotations.NullMarked;
