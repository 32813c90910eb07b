package dev.distlock.redis;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import dev.distlock.LockName;

import org.springframework.util.Assert;

/**
 * The {@link LocalLock}s of one registry, kept while in use and dropped when the last
 * user is done, so that the map holds only locks that are held or waited for.
 */
final class LocalLocks {

	private final ConcurrentMap<LockName, LocalLock> locks = new ConcurrentHashMap<>();

	/**
	 * Return the entry of the named lock, counting one more user.
	 */
	LocalLock retain(LockId id) {
		return this.locks.compute(id.name, (key, lock) -> {
			LocalLock retained = (lock != null) ? lock : new LocalLock(id);
			retained.users++;
			return retained;
		});
	}

	/**
	 * Return the entry of a lock that a hold of this JVM has retained.
	 */
	LocalLock held(LockId id) {
		LocalLock lock = this.locks.get(id.name);
		Assert.state(lock != null, () -> "No entry for held lock '" + id.name + "'");
		return lock;
	}

	/**
	 * Count one user fewer, dropping the entry when none is left.
	 */
	void release(LocalLock lock) {
		this.locks.computeIfPresent(lock.id.name, (key, current) -> (--current.users == 0) ? null : current);
	}

}
