package dev.distlock.aop;

import java.util.ArrayList;
import java.util.List;

import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The owner-free leases of one call whose result completes later, acquired in the call's
 * lock order and released together in reverse.
 */
final class LeaseSet implements HeldLocks {

	private final List<LockLease> leases;

	private LeaseSet(List<LockLease> leases) {
		this.leases = leases;
	}

	/**
	 * Acquire a lease for every name, in order.
	 * @return the leases, or {@code null} if one was not acquired in time (those acquired
	 * before it are released)
	 */
	static @Nullable LeaseSet acquire(LockRegistry registry, LockSpec spec, List<String> names) {
		List<LockLease> leases = new ArrayList<>(names.size());
		try {
			for (String name : names) {
				LockLease lease = registry.tryAcquire(name, spec.waitTime(), spec.leaseOptions()).orElse(null);
				if (lease == null) {
					new LeaseSet(leases).release();
					return null;
				}
				leases.add(lease);
			}
		}
		catch (RuntimeException ex) {
			new LeaseSet(leases).release();
			throw ex;
		}
		return new LeaseSet(leases);
	}

	@Override
	public LockLease innermost() {
		return this.leases.get(this.leases.size() - 1);
	}

	@Override
	public @Nullable LockLostException lossSoFar() {
		return ThreadLocks.lossOf(this.leases);
	}

	@Override
	public @Nullable LockLostException release() {
		LockLostException lost = null;
		for (int i = this.leases.size() - 1; i >= 0; i--) {
			try {
				this.leases.get(i).release();
			}
			catch (LockLostException ex) {
				lost = ex;
			}
		}
		return lost;
	}

}
