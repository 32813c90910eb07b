package dev.distlock.actuate;

import java.util.ArrayList;
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
 * A lock's key value ({@link HeldLock#keyValue()}: the value of a {@link LockName#keyed
 * keyed} name, such as an annotated method's key) may be personal data, such as an e-mail
 * address: unless it is shown, exactly that value is replaced with {@code ******} in the
 * name and in the key ({@code order:******}, {@code lock:order:******}). A name given
 * whole, without a key value, is shown whole, and so is a leadership's name.
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

	private final List<String> nodes;

	/**
	 * Create an endpoint for the given registry on one Redis deployment.
	 * @param registry the registry whose held locks are listed
	 * @param showValues when to show key values
	 * @param roles the roles that authorize a user to be shown key values, any
	 * authenticated user when empty
	 */
	public DistLockEndpoint(LockIntrospector registry, Show showValues, Set<String> roles) {
		this(registry, showValues, roles, List.of());
	}

	/**
	 * Create an endpoint for the given registry, on one Redis deployment or on several
	 * independent nodes (Redlock).
	 * @param registry the registry whose held locks are listed
	 * @param showValues when to show key values
	 * @param roles the roles that authorize a user to be shown key values, any
	 * authenticated user when empty
	 * @param nodes the addresses ({@code host:port}) of the registry's independent nodes,
	 * in the order of {@link LockIntrospector#pingNodes()}; empty for one deployment
	 */
	public DistLockEndpoint(LockIntrospector registry, Show showValues, Set<String> roles, List<String> nodes) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.notNull(showValues, "'showValues' must not be null");
		Assert.notNull(roles, "'roles' must not be null");
		Assert.notNull(nodes, "'nodes' must not be null");
		this.registry = registry;
		this.showValues = showValues;
		this.roles = roles;
		this.nodes = nodes;
	}

	/**
	 * Return the locks held now and the leaderships campaigned for, with their key values
	 * shown or masked, and on independent nodes (Redlock) whether each node answers.
	 * @param securityContext the security context of the caller
	 * @return the held locks, the leaderships and the nodes
	 */
	@ReadOperation
	public HeldLocksDescriptor locks(SecurityContext securityContext) {
		boolean shown = this.showValues.isShown(securityContext, this.roles);
		return new HeldLocksDescriptor(this.registry.heldLocks()
			.stream()
			.map((lock) -> shown ? HeldLockDescriptor.of(lock) : masked(lock))
			.toList(), this.registry.leaderships().stream().map(LeadershipDescriptor::of).toList(), nodes());
	}

	/**
	 * Describe each independent node: its address and the state {@code PING} found it in.
	 */
	private List<NodeDescriptor> nodes() {
		if (this.nodes.isEmpty()) {
			return List.of();
		}
		List<String> states = this.registry.pingNodes();
		List<NodeDescriptor> nodes = new ArrayList<>(this.nodes.size());
		for (int i = 0; i < Math.min(this.nodes.size(), states.size()); i++) {
			nodes.add(new NodeDescriptor(this.nodes.get(i), states.get(i)));
		}
		return nodes;
	}

	/**
	 * Describe a lock with its key value, if it has one, masked in its name and key. The
	 * name ends with the key value and the key is the key prefix followed by the name; a
	 * name or key of another form is masked whole.
	 */
	private static HeldLockDescriptor masked(HeldLock lock) {
		String keyValue = lock.keyValue();
		if (keyValue == null) {
			return HeldLockDescriptor.of(lock);
		}
		String maskedName = replacedEnd(lock.name(), keyValue, MASK);
		return HeldLockDescriptor.of(lock, maskedName, replacedEnd(lock.key(), lock.name(), maskedName));
	}

	/**
	 * Return the text with the given end replaced, or the mask alone if it does not end
	 * so.
	 */
	private static String replacedEnd(String text, String end, String replacement) {
		return text.endsWith(end) ? text.substring(0, text.length() - end.length()) + replacement : MASK;
	}

	/**
	 * Description of the locks an application instance holds, of the leaderships it
	 * campaigns for and of the independent nodes it locks on.
	 *
	 * @param locks the held locks, longest held first
	 * @param leaderships the leaderships, by name
	 * @param nodes the independent nodes (Redlock), in the order configured; empty on one
	 * Redis deployment
	 */
	public record HeldLocksDescriptor(List<HeldLockDescriptor> locks, List<LeadershipDescriptor> leaderships,
			List<NodeDescriptor> nodes) implements OperationResponseBody {

	}

	/**
	 * Description of one independent node (Redlock).
	 *
	 * @param address the node's {@code host:port}
	 * @param state {@code UP} when it answered {@code PING} within the command timeout,
	 * otherwise {@code DOWN} with the error, as the health contributor's {@code nodes}
	 */
	public record NodeDescriptor(String address, String state) {

	}

	/**
	 * Description of one leadership an application instance campaigns for.
	 *
	 * @param name the leadership's name
	 * @param leader whether this instance leads
	 * @param fencingToken the fencing token of the current term while this instance
	 * leads, otherwise {@code null}
	 */
	public record LeadershipDescriptor(String name, boolean leader, @Nullable Long fencingToken) {

		static LeadershipDescriptor of(Leadership leadership) {
			OptionalLong token = leadership.fencingToken();
			return new LeadershipDescriptor(leadership.name(), token.isPresent(),
					token.isPresent() ? token.getAsLong() : null);
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
