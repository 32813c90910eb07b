package dev.distlock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.LockRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The locks one intercepted call holds, as leases (read shares and permits alike):
 * thread-owned holds for a synchronous call (reentrant, released by the owning thread),
 * owner-free leases for a call whose result completes later. Acquired in the call's lock
 * order within one deadline, the spec's wait time from the first attempt, and released
 * together in reverse.
 */
final class CallLocks {

	private final List<LockLease> leases;

	private CallLocks(List<LockLease> leases) {
		this.leases = leases;
	}

	/**
	 * Acquire every named lock for the current thread, in order.
	 * @return the locks, or {@code null} if one was not acquired in time or, for a method
	 * that skips, because Redis failed
	 */
	static @Nullable CallLocks ownedByThread(LockRegistry registry, LockSpec spec, List<LockName> names,
			OutageLog outage) {
		return acquire(names, spec, outage,
				(name, wait) -> spec.target().takeForThread(registry, name, wait, spec.leaseOptions()));
	}

	/**
	 * Acquire an owner-free lease for every name, in order.
	 * @return the leases, or {@code null} if one was not acquired in time or, for a
	 * method that skips, because Redis failed
	 */
	static @Nullable CallLocks ownerFree(LockRegistry registry, LockSpec spec, List<LockName> names, OutageLog outage) {
		return acquire(names, spec, outage,
				(name, wait) -> spec.target().takeOwnerFree(registry, name, wait, spec.leaseOptions()));
	}

	/**
	 * Acquire one lock per name in order, each waiting only for what is left of the wait
	 * time (a lock reached after it gets one attempt); if one is not acquired, release
	 * those acquired before it. A method that skips when its locks are not acquired also
	 * skips when Redis fails, which the outage log tells and logs.
	 */
	private static @Nullable CallLocks acquire(List<LockName> names, LockSpec spec, OutageLog outage,
			BiFunction<LockName, Duration, @Nullable LockLease> acquireOne) {
		CallLocks acquired = new CallLocks(new ArrayList<>(names.size()));
		long start = System.nanoTime();
		for (LockName name : names) {
			LockLease lease;
			try {
				lease = acquireOne.apply(name, remaining(spec.waitTime(), start));
			}
			catch (RuntimeException ex) {
				acquired.releaseAfterFailedAcquisition(ex);
				if (spec.skipOnFailure() && outage.isOutage(ex)) {
					return null;
				}
				throw ex;
			}
			outage.answered();
			if (lease == null) {
				acquired.releaseAfterFailedAcquisition(null);
				return null;
			}
			acquired.leases.add(lease);
		}
		return acquired;
	}

	/**
	 * Return what is left of the wait time that started at the given
	 * {@link System#nanoTime()}, zero once it has passed.
	 */
	private static Duration remaining(Duration waitTime, long startNanos) {
		Duration left = waitTime.minusNanos(System.nanoTime() - startNanos);
		return left.isNegative() ? Duration.ZERO : left;
	}

	/**
	 * Release the locks acquired before one was not. A release failure is thrown, or
	 * added to the acquisition's failure; a loss does not matter, the method did not run.
	 */
	private void releaseAfterFailedAcquisition(@Nullable RuntimeException acquisitionFailure) {
		RuntimeException releaseFailure = release().failure();
		if (releaseFailure == null) {
			return;
		}
		if (acquisitionFailure == null) {
			throw releaseFailure;
		}
		acquisitionFailure.addSuppressed(releaseFailure);
	}

	/**
	 * Return the leases in the order they were taken, for
	 * {@link dev.distlock.LockContext}.
	 */
	List<LockLease> leases() {
		return Collections.unmodifiableList(this.leases);
	}

	/**
	 * Run the given action when one of the locks is found lost while held; it may run
	 * once per lock.
	 * @see LockLease#onLoss
	 */
	void onLoss(Consumer<? super LockLostException> action) {
		this.leases.forEach((lease) -> lease.onLoss(action));
	}

	/**
	 * Return a loss already known without asking Redis: a hold whose lease ran out.
	 */
	@Nullable LockLostException lossSoFar() {
		for (LockLease lease : this.leases) {
			if (!lease.isValid()) {
				return new LockLostException(lease.name(), lease.fencingToken(),
						"Lock '" + lease.name() + "' was lost while held (fencing token " + lease.fencingToken() + ")");
			}
		}
		return null;
	}

	/**
	 * Release every lock, in reverse order, whatever happens to one of them.
	 * @return the loss found, if any lock had been lost, and the first other failure
	 */
	ReleaseOutcome release() {
		LockLostException lost = lossSoFar();
		RuntimeException failure = null;
		for (int i = this.leases.size() - 1; i >= 0; i--) {
			try {
				this.leases.get(i).release();
			}
			catch (LockLostException ex) {
				lost = ex;
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		return new ReleaseOutcome(lost, failure);
	}

}
