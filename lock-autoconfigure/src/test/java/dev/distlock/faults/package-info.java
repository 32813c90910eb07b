/**
 * Tests that drive distlock through faults (killed and stalled processes, failover, data
 * loss, slow and broken networks, bad input, refused credentials) and under load, against
 * real {@code redis-server} processes and rival JVMs.
 */
@NullMarked
package dev.distlock.faults;

import org.jspecify.annotations.NullMarked;
