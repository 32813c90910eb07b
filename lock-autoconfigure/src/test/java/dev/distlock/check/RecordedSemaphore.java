package dev.distlock.check;

import java.time.Duration;
import java.util.Optional;

import dev.distlock.DistributedSemaphore;
import dev.distlock.LockLease;

/**
 * A {@link DistributedSemaphore} that records every acquisition and every permit through
 * its {@link RecordingLockRegistry}, with the number of permits it gives.
 */
final class RecordedSemaphore implements DistributedSemaphore {

	private final DistributedSemaphore delegate;

	private final RecordingLockRegistry registry;

	RecordedSemaphore(DistributedSemaphore delegate, RecordingLockRegistry registry) {
		this.delegate = delegate;
		this.registry = registry;
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public int permits() {
		return this.delegate.permits();
	}

	@Override
	public Optional<LockLease> tryAcquire(Duration waitTime) {
		return this.registry.tryAcquirePermit(this.delegate, waitTime);
	}

}
