package dev.distlock.redis;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import dev.distlock.DistributedSemaphore;
import dev.distlock.HoldKind;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockLease;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A semaphore of a {@link RedisLockRegistry}: each permit is a shared hold, its token's
 * entry in the semaphore's set of permit holders, renewed by the watchdog and fenced by
 * the semaphore's fencing key. Views are cheap and hold nothing: every view of one name,
 * in any process, is the same semaphore.
 *
 * <p>
 * The number of permits is the view's: an attempt is admitted while fewer holders than
 * the permits it passes hold one, and nobody live waits before it. Views of one name with
 * different numbers each count against their own: a larger number admits more at once, a
 * smaller one admits nobody new until enough holders released theirs. Views of one name
 * and number of permits of one registry are equal.
 */
final class RedisSemaphore implements DistributedSemaphore {

	private final RegistryEngine engine;

	private final SharedAttempt attempt;

	private final int permits;

	RedisSemaphore(RegistryEngine engine, LockId id, int permits) {
		Assert.isTrue(permits >= 1,
				() -> "Semaphore '" + id.name + "' must have at least 1 permit, but was given " + permits);
		this.engine = engine;
		this.attempt = new SharedAttempt(id, HoldKind.PERMIT, LuaScript.ACQUIRE_PERMIT, Integer.toString(permits));
		this.permits = permits;
	}

	@Override
	public String name() {
		return this.attempt.id().name.value();
	}

	@Override
	public int permits() {
		return this.permits;
	}

	@Override
	public Optional<LockLease> tryAcquire(Duration waitTime) {
		try {
			return this.engine.leaseOf(this.engine.holds.acquireShared(this.attempt, waitTime));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockAcquisitionException(name(),
					"Interrupted while waiting for a permit of semaphore '" + name() + "'", ex);
		}
	}

	/**
	 * Return whether the other object is a view of the semaphore of the same name of the
	 * same registry with the same number of permits.
	 */
	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof RedisSemaphore semaphore && this.engine == semaphore.engine
				&& name().equals(semaphore.name()) && this.permits == semaphore.permits);
	}

	@Override
	public int hashCode() {
		return Objects.hash(System.identityHashCode(this.engine), name(), this.permits);
	}

	@Override
	public String toString() {
		return "DistributedSemaphore '" + name() + "' (" + this.permits + " permits)";
	}

}
