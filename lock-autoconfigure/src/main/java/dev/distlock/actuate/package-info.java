/**
 * Operations support for distlock: Micrometer metrics, an Actuator endpoint and a health
 * indicator.
 */
@NullMarked
package dev.distlock.actuate;

import org.jspecify.annotations.NullMarked;
