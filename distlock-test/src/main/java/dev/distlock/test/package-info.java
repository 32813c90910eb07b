/**
 * Testing code that takes distributed locks:
 * {@link dev.distlock.test.InMemoryLockRegistry}, an in-JVM
 * {@link dev.distlock.LockRegistry} that keeps the registry's whole contract (selected in
 * a Spring Boot test by {@code distlock.store=in-memory}), and
 * {@link dev.distlock.test.LockFaults}, which makes a held lock lost or stops its
 * renewals so that a test can check what the code under test does then. A real
 * {@code redis-server} for integration tests comes from
 * {@link dev.distlock.testsupport.RedisServerExtension}.
 */
@NullMarked
package dev.distlock.test;

import org.jspecify.annotations.NullMarked;
