package dev.distlock;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * Gives a {@link DistributedLock} method the lease it runs under, for its fencing token:
 * {@code LockContext.currentLease().orElseThrow().fencingToken()}.
 *
 * <p>
 * Bound to the thread that runs the method, for the duration of the call. A method
 * returning a reactive type, such as a {@code Mono} or {@code Flux}, sees the lease of
 * its subscription while it builds its result; operators of that result running later, on
 * other threads, do not see it.
 *
 * @since 0.1.0
 * @see DistributedLock
 */
public final class LockContext {

	private static final ThreadLocal<Deque<LockLease>> LEASES = ThreadLocal.withInitial(ArrayDeque::new);

	private LockContext() {
	}

	/**
	 * Return the innermost lease held for the current call.
	 * @return the lease, or empty outside a {@link DistributedLock} method
	 */
	public static Optional<LockLease> currentLease() {
		return Optional.ofNullable(LEASES.get().peek());
	}

	/**
	 * Make a lease the current one until the returned binding is closed. Used by the
	 * locking interceptor.
	 * @param lease the lease the current call runs under
	 * @return the binding, to be closed when the call ends
	 */
	public static Binding bind(LockLease lease) {
		Deque<LockLease> leases = LEASES.get();
		leases.push(lease);
		return () -> {
			leases.pop();
			if (leases.isEmpty()) {
				LEASES.remove();
			}
		};
	}

	/**
	 * A lease made current by {@link #bind(LockLease)}.
	 */
	@FunctionalInterface
	public interface Binding extends AutoCloseable {

		/**
		 * Restore the lease that was current before.
		 */
		@Override
		void close();

	}

}
