package dev.distlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

import dev.distlock.LockEvent;
import dev.distlock.LockLease;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The engine behind one {@link RedisLockRegistry}: its parts, wired together once, and
 * their shutdown in order; it hands out its holds as leases ({@link RedisLockLease}),
 * which extend them, and release them through {@link HoldRelease}. The registry's views
 * (locks, read/write locks, semaphores) hold the engine rather than the registry, so two
 * views of one engine are views of one registry.
 *
 * <p>
 * Acquiring runs one script ({@code acquire.lua}: {@code SET key token NX PX lease}, the
 * fencing token from the server's clock and the lock's last token, or a place in the
 * lock's wait queue); releasing runs one script that deletes the key only while it holds
 * the caller's token and grants the lock to the first waiter of the queue, waking that
 * waiter's registry on its grant channel. Threads of this JVM that want the same lock
 * queue in the JVM ({@link LocalLock}), so only the first tries and waits in Redis
 * ({@link RedisAcquirer}); each takes the lock straight from a releasing holder of this
 * JVM (the transfer script), and the first otherwise sleeps until its grant arrives or
 * its next re-check. Held locks in watchdog mode are renewed by a
 * {@link dev.distlock.redis.renewal.LeaseRenewal}.
 */
final class RegistryEngine {

	/** The holds taken and not yet released, renewed and reported when lost. */
	final ActiveHolds active;

	/** Takes holds. */
	final RedisAcquirer holds;

	/** Releases holds. */
	final HoldRelease release;

	/** The holds that threads own through the registry's locks. */
	final OwnedLocks owned;

	/** What the operations support asks of Redis. */
	final LockOperations operations;

	/** How long a lock in watchdog mode stays taken unless renewed. */
	final Duration leaseTime;

	/** Publishes the registry's events, its leaderships' too. */
	final LockEventPublisher events;

	private final RedisLockCommands commands;

	private final LockKeys keys;

	private final ReleaseSignals signals;

	/**
	 * Wire the parts of a registry together.
	 * @param commands the commands to Redis, closed with the engine
	 * @param settings how to take and keep locks
	 * @param eventListener told of every lost lock and every renewal that failed with
	 * time left
	 * @param observer told of every wait for a lock and of what became of every hold
	 */
	RegistryEngine(RedisLockCommands commands, RedisLockSettings settings, Consumer<? super LockEvent> eventListener,
			LockObserver observer) {
		this.commands = commands;
		this.operations = new LockOperations(commands);
		this.leaseTime = settings.leaseTime();
		this.keys = new LockKeys(settings.keyPrefix());
		this.signals = new ReleaseSignals(commands, settings.keyPrefix());
		this.events = new LockEventPublisher(eventListener, observer, settings.leaseTime());
		this.active = new ActiveHolds(commands, settings.leaseTime(), this.events);
		LocalLocks locks = new LocalLocks();
		this.holds = new RedisAcquirer(commands, this.signals, settings, locks, this.active, observer);
		this.owned = new OwnedLocks(this.holds);
		this.release = new HoldRelease(commands, new HandOver(commands, this.signals, this.owned), this.signals, locks,
				this.active);
	}

	/**
	 * Return the lock of the given name, checked: a name whose key leaves room for the
	 * lock's helper keys in its Cluster slot.
	 */
	LockId checked(LockName name) {
		Assert.notNull(name, "'name' must not be null");
		return new LockId(name, this.keys.lockKey(name.value()));
	}

	/**
	 * Return an owner-free lease of a hold, released by its first release.
	 * @param hold the hold, or {@code null} when none was taken
	 * @return the lease, or empty
	 */
	Optional<LockLease> leaseOf(@Nullable RedisHold hold) {
		return Optional.ofNullable(hold).map((held) -> lease(held, () -> this.release.release(held)));
	}

	/**
	 * Return a lease view of a hold.
	 * @param releaseAction run by the lease's first release
	 */
	LockLease lease(RedisHold hold, Runnable releaseAction) {
		return new RedisLockLease(hold, releaseAction, this.commands, this.active);
	}

	/**
	 * Throw when this engine locks on a quorum of independent nodes, which do not keep
	 * shared holds.
	 * @param what the primitive asked for
	 */
	void requireSharedHolds(String what) {
		if (this.commands instanceof RedlockCommands) {
			throw RedisLockRegistry.notOnRedlock(what);
		}
	}

	/**
	 * Release every hold still held, reporting it lost first; stop renewing and watching
	 * leases and close the connections; deliver the events published so far.
	 * @param reason why the holds still held are lost, for the reports
	 */
	void close(String reason) {
		this.release.releaseHeld(reason);
		this.active.close();
		this.signals.close();
		this.commands.close();
		this.events.close();
	}

}
