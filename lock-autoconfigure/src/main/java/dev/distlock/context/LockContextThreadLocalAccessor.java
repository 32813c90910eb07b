package dev.distlock.context;

import java.util.List;

import dev.distlock.LockContext;
import dev.distlock.LockLease;
import io.micrometer.context.ThreadLocalAccessor;
import org.jspecify.annotations.Nullable;

/**
 * Carries {@link LockContext} across threads for the context-propagation library: the
 * leases a thread runs under are captured into a Reactor context (by
 * {@code contextCapture()}, or by the locked reactive results themselves) and restored on
 * the threads that run the pipeline's operators, so that
 * {@link LockContext#currentLease()} answers there too. Registered with the library's
 * {@code ContextRegistry} through {@code META-INF/services}.
 *
 * @since 0.1.0
 */
public class LockContextThreadLocalAccessor implements ThreadLocalAccessor<List<LockLease>> {

	/**
	 * The key of the leases in a Reactor context and in the library's snapshots.
	 */
	public static final String KEY = "distlock.lock-context";

	@Override
	public Object key() {
		return KEY;
	}

	/**
	 * Return the leases the current thread runs under, as {@link LockContext#leases()}
	 * lists them.
	 * @return the leases, or {@code null} outside a locked call, so that nothing is
	 * captured
	 */
	@Override
	public @Nullable List<LockLease> getValue() {
		List<LockLease> leases = LockContext.leases();
		return leases.isEmpty() ? null : leases;
	}

	/**
	 * Make the given leases the ones the current thread runs under.
	 * @param leases the leases, as {@link #getValue()} returned them
	 */
	@Override
	public void setValue(List<LockLease> leases) {
		LockContext.carry(leases);
	}

	/**
	 * Leave the current thread running under no lease.
	 */
	@Override
	public void setValue() {
		LockContext.carry(List.of());
	}

}
