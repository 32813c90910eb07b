package dev.distlock.test;

import java.util.Objects;

import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.LockName;
import org.jspecify.annotations.Nullable;

/**
 * The two sides of a name of an {@link InMemoryLockRegistry}: its write side is the lock
 * of the name.
 */
final class InMemoryReadWriteLock implements FencedReadWriteLock {

	private final InMemoryLockRegistry registry;

	private final LockName name;

	InMemoryReadWriteLock(InMemoryLockRegistry registry, LockName name) {
		this.registry = registry;
		this.name = name;
	}

	@Override
	public String name() {
		return this.name.value();
	}

	@Override
	public FencedLock readLock() {
		return new InMemoryFencedLock(this.registry, this.name, HoldKind.READ_SHARE, LeaseOptions.WATCHDOG);
	}

	@Override
	public FencedLock writeLock() {
		return new InMemoryFencedLock(this.registry, this.name, HoldKind.EXCLUSIVE, LeaseOptions.WATCHDOG);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return (this == other) || (other instanceof InMemoryReadWriteLock that && this.registry == that.registry
				&& this.name.equals(that.name));
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.name);
	}

}
