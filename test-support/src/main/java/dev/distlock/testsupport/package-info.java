/**
 * Test support for running real {@code redis-server} and PostgreSQL processes and rival
 * JVMs that never outlive the test JVM.
 */
@NullMarked
package dev.distlock.testsupport;

import org.jspecify.annotations.NullMarked;
