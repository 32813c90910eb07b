/**
 * Auto-configuration of the in-JVM lock registry for Spring Boot tests.
 */
@NullMarked
package dev.distlock.test.autoconfigure;

import org.jspecify.annotations.NullMarked;
