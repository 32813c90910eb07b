package dev.distlock.actuate;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import dev.distlock.HeldLock;
import dev.distlock.Leadership;
import dev.distlock.LockIntrospector;
import dev.distlock.LockName;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.util.Assert;

/**
 * {@link Endpoint @Endpoint} that lists the locks this application instance holds,
 * longest held first, and the leaderships it campaigns for, each with whether it leads.
 * Locks held by other instances are not listed.
 *
 * <p>
 * A lock's key value, the part of its name after its {@link LockName#base() base}, may be
 * personal data, such as an e-mail address: unless it is shown, it is replaced with
 * {@code ******} in the name and in the key ({@code order:******},
 * {@code lock:order:******}), and so in a leadership's name. A name without key value is
 * shown whole.
 *
 * @since 0.1.0
 * @see LockIntrospector#heldLocks()
 */
@Endpoint(id = "distlock")
public class DistLockEndpoint {

	private static final String MASK = "******";

	private final LockIntrospector registry;

	private final Show showValues;

	private final Set<String> roles;

	/**
	 * Create an endpoint for the given registry.
	 * @param registry the registry whose held locks are listed
	 * @param showValues when to show key values
	 * @param roles the roles that authorize a user to be shown key values, any
	 * authenticated user when empty
	 */
	public DistLockEndpoint(LockIntrospector registry, Show showValues, Set<String> roles) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(showValues, "'showValues' must not be null");
		Assert.notNull(roles, "'roles' must not be null");
		this.registry = registry;
		this.showValues = showValues;
		this.roles = roles;
	}

	/**
	 * Return the locks held now and the leaderships campaigned for, with their key values
	 * shown or masked.
	 * @param securityContext the security context of the caller
	 * @return the held locks and the leaderships
	 */
	@ReadOperation
	public HeldLocksDescriptor locks(SecurityContext securityContext) {
		boolean shown = this.showValues.isShown(securityContext, this.roles);
		return new HeldLocksDescriptor(
				this.registry.heldLocks()
					.stream()
					.map((lock) -> shown ? HeldLockDescriptor.of(lock) : masked(lock))
					.toList(),
				this.registry.leaderships()
					.stream()
					.map((leadership) -> LeadershipDescriptor.of(leadership,
							shown ? leadership.name() : maskedName(leadership.name())))
					.toList());
	}

	/**
	 * Describe a lock with its key value masked in its name and key. The key is the key
	 * prefix followed by the name; a key of another form is masked whole.
	 */
	private static HeldLockDescriptor masked(HeldLock lock) {
		String maskedName = maskedName(lock.name());
		if (maskedName.equals(lock.name())) {
			return HeldLockDescriptor.of(lock);
		}
		String key = lock.key();
		String maskedKey = key.endsWith(lock.name())
				? key.substring(0, key.length() - lock.name().length()) + maskedName : MASK;
		return HeldLockDescriptor.of(lock, maskedName, maskedKey);
	}

	/**
	 * Return the name with its key value, if it has one, masked.
	 */
	private static String maskedName(String name) {
		String base = LockName.of(name).base();
		return base.equals(name) ? name : base + ":" + MASK;
	}

	/**
	 * Description of the locks an application instance holds and of the leaderships it
	 * campaigns for.
	 *
	 * @param locks the held locks, longest held first
	 * @param leaderships the leaderships, by name
	 */
	public record HeldLocksDescriptor(List<HeldLockDescriptor> locks,
			List<LeadershipDescriptor> leaderships) implements OperationResponseBody {

	}

	/**
	 * Description of one leadership an application instance campaigns for.
	 *
	 * @param name the leadership's name, its key value masked unless shown
	 * @param leader whether this instance leads
	 * @param fencingToken the fencing token of the current term while this instance
	 * leads, otherwise {@code null}
	 */
	public record LeadershipDescriptor(String name, boolean leader, @Nullable Long fencingToken) {

		static LeadershipDescriptor of(Leadership leadership, String name) {
			OptionalLong token = leadership.fencingToken();
			return new LeadershipDescriptor(name, token.isPresent(), token.isPresent() ? token.getAsLong() : null);
		}

	}

	/**
	 * Description of one held lock.
	 *
	 * @param name the lock name, its key value masked unless shown
	 * @param key the Redis key, its key value masked unless shown
	 * @param fencingToken the fencing token of the hold
	 * @param heldForMs how long it has been held, in milliseconds
	 * @param remainingTtlMs how long the lease is known to last without renewal, in
	 * milliseconds
	 * @param owner the owning thread's name, or {@code lease} for a lease that belongs to
	 * no thread
	 * @param kind how it is held: {@code exclusive}, {@code shared} (a read share) or
	 * {@code permit} (a semaphore's)
	 */
	public record HeldLockDescriptor(String name, String key, long fencingToken, long heldForMs, long remainingTtlMs,
			String owner, String kind) {

		static HeldLockDescriptor of(HeldLock lock) {
			return of(lock, lock.name(), lock.key());
		}

		static HeldLockDescriptor of(HeldLock lock, String name, String key) {
			return new HeldLockDescriptor(name, key, lock.fencingToken(), lock.heldFor().toMillis(),
					lock.remainingTtl().toMillis(), lock.owner(), lock.kind());
		}

	}

}
