package dev.distlock.test;

import java.time.Duration;

import dev.distlock.LockRegistry;
import dev.distlock.LockRegistryContract;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.TestThread;
import org.junit.jupiter.api.AfterEach;

/**
 * The {@link InMemoryLockRegistry} keeps the contract of every {@link LockRegistry}: the
 * suite the Redis registry runs on every deployment, here on registries of one
 * {@link InMemoryLockStore}, each standing for one application instance.
 */
class InMemoryLockRegistryContractTests implements LockRegistryContract {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final InMemoryLockStore store = new InMemoryLockStore();

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
		this.store.close();
	}

	@Override
	public LockRegistry instance(Duration leaseTime) {
		return this.closer.add(new InMemoryLockRegistry(this.store, leaseTime));
	}

	@Override
	public void expire(LockRegistry holder, String name) {
		LockFaults.expire(holder, name);
	}

	@Override
	public void awaitWaiting(TestThread thread) {
		thread.awaitIn("dev.distlock.test.InMemorySlot.await", WAIT);
	}

	@Override
	public Closer closer() {
		return this.closer;
	}

}
