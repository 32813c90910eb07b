package dev.distlock;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * Gives a {@link DistributedLock} method the lease it runs under, for its fencing token:
 * {@code LockContext.currentLease().orElseThrow().fencingToken()}, and checks before a
 * side effect that it still holds its locks: {@code LockContext.assertHeld()}. The lease
 * of a {@code mode = SHARED} method is its read share, and a
 * {@link DistributedConcurrencyLimit} method runs under its permit as under a lock: a
 * method with both sees the lock's lease as the current one and both in
 * {@link #leases()}.
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

	private static final ThreadLocal<Deque<List<LockLease>>> CALLS = new ThreadLocal<>();

	private LockContext() {
	}

	/**
	 * Return the innermost lease held for the current call: the lease of the last lock it
	 * took.
	 * @return the lease, or empty outside a {@link DistributedLock} method
	 */
	public static Optional<LockLease> currentLease() {
		Deque<List<LockLease>> calls = CALLS.get();
		if (calls == null) {
			return Optional.empty();
		}
		List<LockLease> call = calls.getFirst();
		return Optional.of(call.get(call.size() - 1));
	}

	/**
	 * Check that the current call still holds every lock it runs under, before a side
	 * effect that the locks must cover: each lease of the current call and of the locked
	 * calls around it. Asks nothing of Redis: a lease is held while it
	 * {@linkplain LockLease#isValid() is valid}.
	 * @throws LockLostException if one of them is no longer valid
	 * @throws IllegalStateException outside a {@link DistributedLock} method
	 */
	public static void assertHeld() {
		List<LockLease> leases = leases();
		if (leases.isEmpty()) {
			throw new IllegalStateException("LockContext.assertHeld() was called on thread '"
					+ Thread.currentThread().getName() + "' outside a @DistributedLock method");
		}
		leases.forEach(LockLease::assertValid);
	}

	/**
	 * Return every lease the current thread runs under: those of the current call, the
	 * last taken first, then those of the locked calls around it.
	 * @return the leases, empty outside a {@link DistributedLock} method
	 */
	public static List<LockLease> leases() {
		Deque<List<LockLease>> calls = CALLS.get();
		if (calls == null) {
			return List.of();
		}
		List<LockLease> leases = new ArrayList<>();
		for (List<LockLease> call : calls) {
			for (int i = call.size() - 1; i >= 0; i--) {
				leases.add(call.get(i));
			}
		}
		return leases;
	}

	/**
	 * Make the leases of a call current until the returned binding is closed. Used by the
	 * locking interceptor.
	 * @param leases the leases the call runs under, in the order they were taken
	 * @return the binding, to be closed when the call ends
	 * @throws IllegalArgumentException if there is no lease
	 */
	public static Binding bind(List<? extends LockLease> leases) {
		if (leases.isEmpty()) {
			throw new IllegalArgumentException("A locked call runs under at least one lease");
		}
		Deque<List<LockLease>> calls = CALLS.get();
		if (calls == null) {
			calls = new ArrayDeque<>();
			CALLS.set(calls);
		}
		calls.push(List.copyOf(leases));
		Deque<List<LockLease>> bound = calls;
		return () -> {
			bound.pop();
			if (bound.isEmpty()) {
				CALLS.remove();
			}
		};
	}

	/**
	 * The leases of a call made current by {@link #bind(List)}.
	 */
	@FunctionalInterface
	public interface Binding extends AutoCloseable {

		/**
		 * Restore the leases that were current before.
		 */
		@Override
		void close();

	}

}
