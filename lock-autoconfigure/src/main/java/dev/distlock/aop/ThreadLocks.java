package dev.distlock.aop;

import java.util.ArrayList;
import java.util.List;

import dev.distlock.FencedLock;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The thread-owned locks of one synchronous call, acquired in the call's lock order and
 * released together in reverse. Reentrant: a nested call on the same thread re-enters.
 */
final class ThreadLocks implements HeldLocks {

	private final List<FencedLock> locks;

	private ThreadLocks(List<FencedLock> locks) {
		this.locks = locks;
	}

	/**
	 * Acquire every named lock for the current thread, in order.
	 * @return the locks, or {@code null} if one was not acquired in time (those acquired
	 * before it are released)
	 */
	static @Nullable ThreadLocks acquire(LockRegistry registry, LockSpec spec, List<String> names) {
		List<FencedLock> locks = new ArrayList<>(names.size());
		try {
			for (String name : names) {
				FencedLock lock = registry.obtain(name, spec.leaseOptions());
				if (!lock.tryLock(spec.waitTime())) {
					new ThreadLocks(locks).release();
					return null;
				}
				locks.add(lock);
			}
		}
		catch (RuntimeException ex) {
			new ThreadLocks(locks).release();
			throw ex;
		}
		return new ThreadLocks(locks);
	}

	/**
	 * Return a loss among the given leases that is known without asking Redis.
	 */
	static @Nullable LockLostException lossOf(List<LockLease> leases) {
		for (LockLease lease : leases) {
			if (!lease.isValid()) {
				return new LockLostException(lease.name(), lease.fencingToken(),
						"Lock '" + lease.name() + "' was lost while held (fencing token " + lease.fencingToken() + ")");
			}
		}
		return null;
	}

	@Override
	public LockLease innermost() {
		return this.locks.get(this.locks.size() - 1).currentHold();
	}

	@Override
	public @Nullable LockLostException lossSoFar() {
		return lossOf(this.locks.stream().map(FencedLock::currentHold).toList());
	}

	@Override
	public @Nullable LockLostException release() {
		LockLostException lost = lossSoFar();
		for (int i = this.locks.size() - 1; i >= 0; i--) {
			try {
				this.locks.get(i).unlock();
			}
			catch (LockLostException ex) {
				lost = ex;
			}
		}
		return lost;
	}

}
