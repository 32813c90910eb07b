package dev.distlock.redis;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.distlock.DistributedLockException;
import dev.distlock.FencedLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockLostException;
import dev.distlock.LockRegistry;
import io.lettuce.core.AbstractRedisClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * {@link LockRegistry} on Redis through Lettuce.
 *
 * <p>
 * Acquiring runs one script ({@code SET key token NX PX lease} plus {@code INCRBY} of the
 * fencing counter); releasing runs one script that deletes the key only while it holds
 * the caller's token and publishes a release signal. Threads of this JVM that want the
 * same lock queue on a local fair permit, so only one of them at a time tries and waits
 * in Redis ({@link RedisAcquirer}); that one sleeps until a release signal arrives or the
 * holder's lease would have run out, or takes the lock straight from a releasing holder
 * of this JVM. Held locks in watchdog mode are renewed by a {@link LeaseWatchdog}. A lost
 * lock is logged and reported to the loss listener (the application's event publisher in
 * a Spring application) once.
 *
 * @author distlock
 * @since 0.1.0
 */
public class RedisLockRegistry implements LockRegistry, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockRegistry.class);

	private final RedisLockCommands commands;

	private final ReleaseSignals signals;

	private final RedisAcquirer acquirer;

	private final HandOver handOver;

	private final LocalLocks locks;

	private final LeaseWatchdog watchdog;

	private final Consumer<LockLostEvent> lossListener;

	private final LockObserver observer;

	private final Set<RedisHold> holds = ConcurrentHashMap.newKeySet();

	private final OwnedHolds owned = new OwnedHolds();

	/**
	 * Create a registry on the given Lettuce client.
	 * @param client a {@code RedisClient} or {@code RedisClusterClient}, owned by the
	 * caller
	 * @param settings how to take and keep locks
	 * @param lossListener told of every lost lock, such as an
	 * {@code ApplicationEventPublisher}
	 */
	public RedisLockRegistry(AbstractRedisClient client, RedisLockSettings settings,
			Consumer<LockLostEvent> lossListener) {
		this(client, settings, lossListener, LockObserver.NONE);
	}

	/**
	 * Create a registry on the given Lettuce client, observed for metrics.
	 * @param client a {@code RedisClient} or {@code RedisClusterClient}, owned by the
	 * caller
	 * @param settings how to take and keep locks
	 * @param lossListener told of every lost lock, such as an
	 * {@code ApplicationEventPublisher}
	 * @param observer told of every acquisition, release and loss
	 */
	public RedisLockRegistry(AbstractRedisClient client, RedisLockSettings settings,
			Consumer<LockLostEvent> lossListener, LockObserver observer) {
		Assert.notNull(client, "'client' must not be null");
		Assert.notNull(settings, "'settings' must not be null");
		Assert.notNull(lossListener, "'lossListener' must not be null");
		Assert.notNull(observer, "'observer' must not be null");
		this.observer = observer;
		this.commands = new RedisLockCommands(client, settings);
		this.signals = new ReleaseSignals(this.commands);
		this.acquirer = new RedisAcquirer(this.commands, this.signals, settings);
		this.handOver = new HandOver(this.commands, this.signals, this::lost);
		this.locks = new LocalLocks(new LockKeys(settings.keyPrefix()));
		this.watchdog = new LeaseWatchdog(this.commands, settings.leaseTime(), this::lost);
		this.lossListener = lossListener;
	}

	@Override
	public FencedLock obtain(String name, LeaseOptions options) {
		checkName(name);
		Assert.notNull(options, "'options' must not be null");
		return new RedisFencedLock(this, name, options);
	}

	@Override
	public Optional<LockLease> tryAcquire(String name, Duration waitTime, LeaseOptions options) {
		checkName(name);
		Assert.notNull(options, "'options' must not be null");
		try {
			RedisHold hold = acquireHold(name, waitTime, options);
			return Optional.ofNullable(hold).map((held) -> new RedisLockLease(held, () -> release(held)));
		}
		catch (InterruptedException ex) {
			throw interrupted(name, ex);
		}
	}

	/**
	 * Return the locks this registry holds now.
	 * @return the held locks, longest held first
	 */
	public List<HeldLock> heldLocks() {
		long now = System.nanoTime();
		return this.holds.stream()
			.filter((hold) -> hold.state() == RedisHold.State.HELD)
			.sorted(Comparator.comparingLong((RedisHold hold) -> hold.acquiredNanos))
			.map((hold) -> {
				String owner = hold.owner;
				return new HeldLock(hold.lock.name, hold.lock.key, hold.fencingToken,
						Duration.ofNanos(now - hold.acquiredNanos),
						Duration.ofNanos(Math.max(0, hold.validUntilNanos() - now)), (owner != null) ? owner : "lease");
			})
			.toList();
	}

	/**
	 * Check that Redis answers on the connection that lock commands use.
	 * @throws DistributedLockException if it does not answer within the command timeout
	 */
	public void ping() {
		this.commands.await(this.commands.ping(), "answer PING");
	}

	/**
	 * Return how often the watchdog renews leases: a third of the lease time.
	 * @return the renewal period
	 */
	public Duration renewalPeriod() {
		return this.watchdog.period();
	}

	/**
	 * Return how late the watchdog's last renewal round is: zero when it ran within its
	 * period, otherwise how much longer ago.
	 * @return the renewal delay
	 */
	public Duration renewalDelay() {
		return this.watchdog.delay();
	}

	/**
	 * Renew every held lock in watchdog mode now, rather than at the next period.
	 */
	public void renewLeases() {
		this.watchdog.renew();
	}

	/**
	 * Stop renewing leases and close the connections. Held locks expire with their lease.
	 */
	@Override
	public void close() {
		this.watchdog.close();
		this.signals.close();
		this.commands.close();
	}

	/**
	 * Acquire a hold for the current thread, reentering a hold it already owns.
	 */
	boolean lockOwned(String name, Duration waitTime, LeaseOptions options) throws InterruptedException {
		RedisHold owned = this.owned.find(name);
		if (owned != null) {
			owned.reentries++;
			return true;
		}
		RedisHold hold = acquireHold(name, waitTime, options);
		if (hold == null) {
			return false;
		}
		this.owned.add(hold);
		return true;
	}

	/**
	 * Leave one hold of the current thread, releasing the lock when it was the outermost.
	 * @throws IllegalMonitorStateException if the current thread does not hold it
	 */
	void unlockOwned(String name) {
		RedisHold hold = this.owned.leave(name);
		if (hold != null) {
			release(hold);
		}
	}

	/**
	 * Return the current thread's hold of the named lock.
	 * @throws IllegalMonitorStateException if the current thread does not hold it
	 */
	RedisHold ownedHold(String name) {
		return this.owned.get(name);
	}

	boolean isOwnedByCurrentThread(String name) {
		return this.owned.find(name) != null;
	}

	private static void checkName(String name) {
		Assert.hasLength(name, "'name' must not be empty");
		LockKeys.checkName(name);
	}

	static LockAcquisitionException interrupted(String name, InterruptedException ex) {
		Thread.currentThread().interrupt();
		return new LockAcquisitionException(name, "Interrupted while waiting for lock '" + name + "'", ex);
	}

	/**
	 * Release a hold, keeping the key until its minimum hold time has passed. The hold is
	 * released in this JVM first (no longer renewed, no longer the thread's), then handed
	 * to a waiting thread of this JVM or released in Redis. A hold whose lease ran out
	 * before the release counts as lost, even if Redis still had its key. An interrupt
	 * does not end the wait for Redis' answer.
	 * @throws LockLostException if the hold had been lost
	 * @throws DistributedLockException if Redis did not answer; the key then expires with
	 * its lease
	 */
	void release(RedisHold hold) {
		boolean expired;
		RedisHold.State before;
		// Under the hold's reporting lock: a loss being reported now is published before
		// we go on.
		hold.reporting.lock();
		try {
			expired = !hold.isValid();
			before = hold.markReleased();
		}
		finally {
			hold.reporting.unlock();
		}
		if (before == RedisHold.State.RELEASED) {
			return;
		}
		this.watchdog.remove(hold);
		this.holds.remove(hold);
		this.observer.released(hold.lock.name, Duration.ofNanos(System.nanoTime() - hold.acquiredNanos));
		boolean stillHeld;
		try {
			HandOver.Outcome handedOver = (before == RedisHold.State.HELD && !expired) ? this.handOver.offer(hold)
					: HandOver.Outcome.NONE;
			stillHeld = (handedOver != HandOver.Outcome.NONE) ? handedOver == HandOver.Outcome.DONE
					: this.commands.awaitUninterruptibly(
							this.commands.release(hold.lock.key, hold.token, hold.keepMillis()),
							"release lock '" + hold.lock.name + "'");
		}
		finally {
			this.locks.release(hold.lock);
		}
		if (before == RedisHold.State.HELD && (!stillHeld || expired)) {
			report(hold, stillHeld ? "it was released after its lease ran out"
					: "its release found it expired or held by another owner");
		}
		if (!stillHeld || expired) {
			throw new LockLostException(hold.lock.name, hold.fencingToken, "Lock '" + hold.lock.name
					+ "' was lost before its release (fencing token " + hold.fencingToken + ")");
		}
	}

	private @Nullable RedisHold acquireHold(String name, Duration waitTime, LeaseOptions options)
			throws InterruptedException {
		Assert.isTrue(!waitTime.isNegative(), () -> "Wait time of lock '" + name + "' must not be negative");
		Deadline deadline = Deadline.after(waitTime);
		long startNanos = System.nanoTime();
		LocalLock lock = this.locks.retain(name);
		boolean permitted = false;
		RedisHold hold = null;
		try {
			permitted = lock.permit.tryAcquire(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
			if (permitted) {
				hold = this.acquirer.acquire(lock, deadline, options);
			}
			Duration waited = Duration.ofNanos(System.nanoTime() - startNanos);
			if (hold != null) {
				this.holds.add(hold);
				if (hold.renewed) {
					this.watchdog.add(hold);
				}
				this.observer.acquired(name, waited);
			}
			else {
				this.observer.notAcquired(name, waited);
			}
			return hold;
		}
		finally {
			if (permitted) {
				lock.permit.release();
			}
			if (hold == null) {
				this.locks.release(lock);
			}
		}
	}

	private void lost(RedisHold hold, String reason) {
		hold.reporting.lock();
		try {
			if (hold.markLost()) {
				this.watchdog.remove(hold);
				report(hold, reason);
			}
		}
		finally {
			hold.reporting.unlock();
		}
	}

	private void report(RedisHold hold, String reason) {
		logger.warn("Lock '" + hold.lock.name + "' (fencing token " + hold.fencingToken + ") was lost: " + reason);
		LockLostEvent event = new LockLostEvent(hold.lock.name, hold.lock.key, hold.fencingToken, reason);
		this.observer.lost(event);
		try {
			this.lossListener.accept(event);
		}
		catch (RuntimeException ex) {
			logger.error("Lock loss listener failed for lock '" + hold.lock.name + "'", ex);
		}
	}

}
