package dev.distlock.docs;

import java.time.Duration;

import dev.distlock.DistributedSemaphore;
import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.Leadership;
import dev.distlock.LockLease;
import dev.distlock.LockRegistry;

/**
 * The documented uses of the {@link LockRegistry}: an owner-free lease, a
 * {@link FencedLock}, a semaphore, a leadership and a read/write lock, each passing its
 * fencing token to the store it writes.
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

	/**
	 * Run an export holding one of three permits.
	 */
	void export() {
		// tag::semaphore[]
		DistributedSemaphore exports = this.locks.semaphore("exports", 3);
		try (LockLease permit = exports.acquire(Duration.ofSeconds(10))) {
			this.store.write("export", permit.fencingToken());
		}
		// end::semaphore[]
	}

	/**
	 * Write the report if this instance is elected leader of {@code reports}.
	 */
	void leadReports() {
		// tag::leadership[]
		Leadership reports = this.locks.leadership("reports");
		reports.start();
		if (reports.isLeader()) {
			this.store.write("report", reports.fencingToken().orElseThrow());
		}
		reports.stop();
		// end::leadership[]
	}

	/**
	 * Read the catalogue, then write an item to it.
	 * @param item the item
	 */
	void readThenWrite(String item) {
		// tag::read-write-lock[]
		FencedReadWriteLock catalogue = this.locks.readWriteLock("catalogue");

		catalogue.readLock().lock(); // many threads and instances read at once
		try {
			this.store.write("read", catalogue.readLock().fencingToken());
		}
		finally {
			catalogue.readLock().unlock();
		}

		FencedLock writer = catalogue.writeLock(); // one writer, and nobody reads
		if (writer.tryLock(Duration.ofSeconds(5))) {
			try {
				this.store.write(item, writer.fencingToken());
			}
			finally {
				writer.unlock();
			}
		}
		// end::read-write-lock[]
	}

}
