package dev.distlock;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

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
 * its subscription while it builds its result, and its result carries the leases in its
 * Reactor context: with the context-propagation library, operators that restore thread
 * locals (all of them once {@code Hooks.enableAutomaticContextPropagation()} is on,
 * {@code handle} and {@code tap} otherwise) see them on any thread, through
 * {@link dev.distlock.context.LockContextThreadLocalAccessor}. A Kotlin {@code suspend}
 * function sees its leases on every thread its coroutine runs on.
 *
 * @since 0.1.0
 * @see DistributedLock
 */
public final class LockContext {

	/** The leases the thread runs under, the innermost first; never empty. */
	private static final ThreadLocal<List<LockLease>> LEASES = new ThreadLocal<>();

	private LockContext() {
	}

	/**
	 * Return the innermost lease held for the current call: the lease of the last lock it
	 * took.
	 * @return the lease, or empty outside a {@link DistributedLock} method
	 */
	public static Optional<LockLease> currentLease() {
		List<LockLease> leases = LEASES.get();
		return (leases != null) ? Optional.of(leases.get(0)) : Optional.empty();
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
		List<LockLease> leases = LEASES.get();
		return (leases != null) ? leases : List.of();
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
		List<LockLease> outer = LEASES.get();
		List<LockLease> current = new ArrayList<>(leases.size() + ((outer != null) ? outer.size() : 0));
		for (int i = leases.size() - 1; i >= 0; i--) {
			current.add(leases.get(i));
		}
		if (outer != null) {
			current.addAll(outer);
		}
		set(Collections.unmodifiableList(current));
		return () -> set(outer);
	}

	/**
	 * Make the given leases, as {@link #leases()} returned them on another thread, the
	 * ones the current thread runs under instead of its own, until the returned binding
	 * is closed. Used by the carriers of the context across threads, such as the
	 * coroutine context element and the context-propagation accessor.
	 * @param leases the leases, the innermost first; empty for none
	 * @return the binding, whose closing gives the thread back its own leases
	 */
	public static Binding carry(List<LockLease> leases) {
		List<LockLease> previous = LEASES.get();
		set(leases);
		return () -> set(previous);
	}

	/**
	 * Make the given leases, as {@link #leases()} returned them, the ones the thread runs
	 * under.
	 * @param leases the leases, the innermost first, or {@code null} or empty for none
	 */
	private static void set(@Nullable List<LockLease> leases) {
		if (leases == null || leases.isEmpty()) {
			LEASES.remove();
		}
		else {
			LEASES.set(leases);
		}
	}

	/**
	 * The leases of a call made current by {@link #bind(List)}, or of another thread made
	 * current by {@link #carry(List)}.
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
