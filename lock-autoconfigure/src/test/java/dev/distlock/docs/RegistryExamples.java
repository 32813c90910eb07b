package dev.distlock.docs;

import java.time.Duration;

import dev.distlock.FencedLock;
import dev.distlock.LockLease;
import dev.distlock.LockRegistry;

/**
 * The README's uses of the {@link LockRegistry}: an owner-free lease and a
 * {@link FencedLock}, each passing its fencing token to the store it writes.
 */
class RegistryExamples {

	private final LockRegistry locks;

	private final TokenStore store;

	RegistryExamples(LockRegistry locks, TokenStore store) {
		this.locks = locks;
		this.store = store;
	}

	/**
	 * Write the daily report under a lease.
	 * @param data the report
	 */
	void writeReport(String data) {
		// tag::lease[]
		try (LockLease lease = this.locks.acquire("report:daily", Duration.ofSeconds(5))) {
			this.store.write(data, lease.fencingToken());
		}
		// end::lease[]
	}

	/**
	 * Reserve the inventory if its lock is taken within half a second.
	 */
	void reserve() {
		// tag::fenced-lock[]
		// a java.util.concurrent.locks.Lock, owned by this thread and reentrant
		FencedLock lock = this.locks.obtain("inventory");
		if (lock.tryLock(Duration.ofMillis(500))) {
			try {
				this.store.write("reserved", lock.fencingToken());
			}
			finally {
				lock.unlock();
			}
		}
		// end::fenced-lock[]
	}

}
