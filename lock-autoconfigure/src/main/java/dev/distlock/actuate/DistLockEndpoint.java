package dev.distlock.actuate;

import java.util.List;

import dev.distlock.HeldLock;
import dev.distlock.LockIntrospector;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.util.Assert;

/**
 * {@link Endpoint @Endpoint} that lists the locks this application instance holds,
 * longest held first. Locks held by other instances are not listed.
 *
 * @author distlock
 * @since 0.1.0
 * @see LockIntrospector#heldLocks()
 */
@Endpoint(id = "distlock")
public class DistLockEndpoint {

	private final LockIntrospector registry;

	/**
	 * Create an endpoint for the given registry.
	 * @param registry the registry whose held locks are listed
	 */
	public DistLockEndpoint(LockIntrospector registry) {
		Assert.notNull(registry, "'registry' must not be null");
		this.registry = registry;
	}

	/**
	 * Return the locks held now.
	 * @return the held locks
	 */
	@ReadOperation
	public HeldLocksDescriptor locks() {
		return new HeldLocksDescriptor(this.registry.heldLocks().stream().map(HeldLockDescriptor::of).toList());
	}

	/**
	 * Description of the locks an application instance holds.
	 *
	 * @param locks the held locks, longest held first
	 */
	public record HeldLocksDescriptor(List<HeldLockDescriptor> locks) implements OperationResponseBody {

	}

	/**
	 * Description of one held lock.
	 *
	 * @param name the lock name
	 * @param key the Redis key
	 * @param fencingToken the fencing token of the hold
	 * @param heldForMs how long it has been held, in milliseconds
	 * @param remainingTtlMs how long the lease is known to last without renewal, in
	 * milliseconds
	 * @param owner the owning thread's name, or {@code lease} for a lease that belongs to
	 * no thread
	 */
	public record HeldLockDescriptor(String name, String key, long fencingToken, long heldForMs, long remainingTtlMs,
			String owner) {

		static HeldLockDescriptor of(HeldLock lock) {
			return new HeldLockDescriptor(lock.name(), lock.key(), lock.fencingToken(), lock.heldFor().toMillis(),
					lock.remainingTtl().toMillis(), lock.owner());
		}

	}

}
