/**
 * Spring Boot auto-configuration of distlock on top of Spring Boot's Redis connection.
 */
@NullMarked
package dev.distlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
