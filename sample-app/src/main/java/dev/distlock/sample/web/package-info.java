/**
 * HTTP concerns shared by the sample's controllers.
 */
@NullMarked
package dev.distlock.sample.web;

import org.jspecify.annotations.NullMarked;
