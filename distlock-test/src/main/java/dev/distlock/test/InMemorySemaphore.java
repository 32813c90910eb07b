package dev.distlock.test;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import dev.distlock.DistributedSemaphore;
import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import org.jspecify.annotations.Nullable;

/**
 * A semaphore of an {@link InMemoryLockRegistry}: each attempt takes a permit while fewer
 * holds than its own permits hold the name.
 */
final class InMemorySemaphore implements DistributedSemaphore {

	private final InMemoryLockRegistry registry;

	private final LockName name;

	private final int permits;

	InMemorySemaphore(InMemoryLockRegistry registry, LockName name, int permits) {
		this.registry = registry;
		this.name = name;
		this.permits = permits;
	}

	@Override
	public String name() {
		return this.name.value();
	}

	@Override
	public int permits() {
		return this.permits;
	}

	@Override
	public Optional<LockLease> tryAcquire(Duration waitTime) {
		try {
			return Optional
				.ofNullable(
						this.registry.take(this.name, HoldKind.PERMIT, this.permits, waitTime, LeaseOptions.WATCHDOG))
				.map(this.registry::lease);
		}
		catch (InterruptedException ex) {
			throw InMemoryLockRegistry
				.interrupted("Interrupted while waiting for a permit of semaphore '" + this.name + "'", this.name, ex);
		}
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof InMemorySemaphore that && this.registry == that.registry
				&& this.name.equals(that.name) && this.permits == that.permits);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.name, this.permits);
	}

}
