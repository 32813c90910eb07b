package dev.distlock.aop;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import dev.distlock.DistributedSemaphore;
import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.LeaseOptions;
import dev.distlock.LockAcquisitionException;
import dev.distlock.LockLease;
import dev.distlock.LockLostException;
import dev.distlock.LockRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A {@link LockRegistry} for one JVM, to test the interception rules without Redis. Each
 * name has one fair slot of permits: a thread-owned {@link FencedLock} (reentrant on its
 * thread) and an owner-free {@link LockLease} take them all, so that the two exclude each
 * other, and the read side of the name's read/write lock takes one, so that readers share
 * it and a waiting writer holds back the readers behind it; a writer may take the read
 * side too (a downgrade), a reader may not take the write side. Semaphores have slots of
 * their own, of the permits the first caller asked for. The fencing tokens of a name
 * count from 1. Holds never expire: lease and minimum hold times are not kept, and a
 * taken lock's remaining lease is forever. {@link #loseAll()} stands for leases that ran
 * out: it runs their loss actions, and their release then throws
 * {@link LockLostException}, as the Redis registry's do; so does the extension of a lease
 * no longer held, while extending a held one changes nothing.
 */
final class InMemoryLockRegistry implements LockRegistry {

	/** Every permit of a lock's slot: what the lock, or its write side, takes. */
	private static final int ALL_PERMITS = Integer.MAX_VALUE;

	private final ConcurrentMap<String, Slot> slots = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, Slot> semaphores = new ConcurrentHashMap<>();

	private final Set<Hold> holds = ConcurrentHashMap.newKeySet();

	private final ThreadLocal<Map<String, Hold>> owned = ThreadLocal.withInitial(HashMap::new);

	private final ThreadLocal<Map<String, Hold>> ownedReads = ThreadLocal.withInitial(HashMap::new);

	@Override
	public FencedLock obtain(String name, LeaseOptions options) {
		Assert.hasLength(name, "'name' must not be empty");
		return new OwnedLock(name, false);
	}

	@Override
	public FencedReadWriteLock readWriteLock(String name) {
		Assert.hasLength(name, "'name' must not be empty");
		return new ReadWriteLock(name);
	}

	@Override
	public DistributedSemaphore semaphore(String name, int permits) {
		Assert.hasLength(name, "'name' must not be empty");
		Assert.isTrue(permits > 0, "'permits' must be positive");
		return new InMemorySemaphore(name, permits);
	}

	@Override
	public Optional<LockLease> tryAcquire(String name, Duration waitTime, LeaseOptions options) {
		Assert.hasLength(name, "'name' must not be empty");
		try {
			return Optional.ofNullable(take(name, lockSlot(name), ALL_PERMITS, waitTime.toNanos()))
				.map((hold) -> new HoldLease(hold, hold::release));
		}
		catch (InterruptedException ex) {
			throw interrupted(name, ex);
		}
	}

	/**
	 * Return how long the lock of the given name stays taken: forever while a writer, a
	 * lease or a reader holds it, since holds never expire.
	 */
	@Override
	public Optional<Duration> remainingLease(String name) {
		Slot slot = this.slots.get(name);
		return (slot != null && slot.permits.availablePermits() < ALL_PERMITS)
				? Optional.of(ChronoUnit.FOREVER.getDuration()) : Optional.empty();
	}

	/**
	 * Return the names held now, by threads or as leases.
	 * @return the names, sorted
	 */
	List<String> heldNames() {
		return this.holds.stream().filter(Hold::isValid).map((hold) -> hold.name).sorted().toList();
	}

	/**
	 * Mark every current hold lost, as if its lease ran out: its name is free again, it
	 * is no longer valid, its loss actions run, and its release throws
	 * {@link LockLostException}.
	 */
	void loseAll() {
		this.holds.forEach(Hold::lose);
	}

	private Slot lockSlot(String name) {
		return this.slots.computeIfAbsent(name, (key) -> new Slot(ALL_PERMITS));
	}

	private @Nullable Hold take(String name, Slot slot, int permits, long waitNanos) throws InterruptedException {
		Assert.isTrue(waitNanos >= 0, () -> "Wait time of lock '" + name + "' must not be negative");
		if (!slot.permits.tryAcquire(permits, waitNanos, TimeUnit.NANOSECONDS)) {
			return null;
		}
		return held(new Hold(name, slot, permits));
	}

	private Hold held(Hold hold) {
		this.holds.add(hold);
		return hold;
	}

	private static LockAcquisitionException interrupted(String name, InterruptedException ex) {
		Thread.currentThread().interrupt();
		return new LockAcquisitionException(name, "Interrupted while waiting for lock '" + name + "'", ex);
	}

	/**
	 * The fair permits of one name, and the last fencing token given with them.
	 */
	private static final class Slot {

		final Semaphore permits;

		final AtomicLong lastToken = new AtomicLong();

		Slot(int permits) {
			this.permits = new Semaphore(permits, true);
		}

	}

	/**
	 * Where a hold stands.
	 */
	private enum State {

		HELD, LOST, RELEASED

	}

	/**
	 * One acquisition of a name, by a thread or as a lease.
	 */
	private final class Hold {

		final String name;

		final long fencingToken;

		final Instant acquiredAt = Instant.now();

		/** Reentry count of the owning thread; read and written by that thread only. */
		int reentries;

		private final Slot slot;

		/** How many of the slot's permits the hold has, given back when it ends. */
		private int permits;

		private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

		/** Completed when lost, cancelled when released first: runs each action once. */
		private final CompletableFuture<LockLostException> loss = new CompletableFuture<>();

		Hold(String name, Slot slot, int permits) {
			this.name = name;
			this.slot = slot;
			this.permits = permits;
			this.fencingToken = slot.lastToken.incrementAndGet();
		}

		/**
		 * Return a hold of one of this hold's permits, which this one no longer gives
		 * back: a write hold's read share.
		 */
		Hold share() {
			this.permits--;
			return new Hold(this.name, this.slot, 1);
		}

		boolean isValid() {
			return this.state.get() == State.HELD;
		}

		void lose() {
			if (this.state.compareAndSet(State.HELD, State.LOST)) {
				free();
				this.loss.complete(new LockLostException(this.name, this.fencingToken,
						"Lock '" + this.name + "' was lost while held (fencing token " + this.fencingToken + ")"));
			}
		}

		void onLoss(Consumer<? super LockLostException> action) {
			this.loss.thenAccept(action);
		}

		/**
		 * Release the hold; a second release does nothing.
		 * @throws LockLostException if it was lost before
		 */
		void release() {
			State before = this.state.getAndSet(State.RELEASED);
			if (before == State.HELD) {
				free();
				this.loss.cancel(false);
			}
			else if (before == State.LOST) {
				throw new LockLostException(this.name, this.fencingToken, "Lock '" + this.name
						+ "' was lost before its release (fencing token " + this.fencingToken + ")");
			}
		}

		private void free() {
			InMemoryLockRegistry.this.holds.remove(this);
			this.slot.permits.release(this.permits);
		}

	}

	/**
	 * A lease view of a hold, whose first release runs the given action.
	 */
	private static final class HoldLease implements LockLease {

		private final Hold hold;

		private final Runnable releaseAction;

		private final AtomicBoolean released = new AtomicBoolean();

		HoldLease(Hold hold, Runnable releaseAction) {
			this.hold = hold;
			this.releaseAction = releaseAction;
		}

		@Override
		public String name() {
			return this.hold.name;
		}

		@Override
		public long fencingToken() {
			return this.hold.fencingToken;
		}

		@Override
		public boolean isValid() {
			return this.hold.isValid();
		}

		@Override
		public void onLoss(Consumer<? super LockLostException> action) {
			this.hold.onLoss(action);
		}

		@Override
		public void extend(Duration leaseTime) {
			Assert.isTrue(leaseTime.toMillis() > 0, () -> "Lease time of lock '" + this.hold.name
					+ "' must be at least 1 ms, but was given " + leaseTime);
			assertValid();
		}

		@Override
		public Instant acquiredAt() {
			return this.hold.acquiredAt;
		}

		@Override
		public void release() {
			if (this.released.compareAndSet(false, true)) {
				this.releaseAction.run();
			}
		}

	}

	/**
	 * A thread-owned view of one name, its lock (the write side) or its read side; every
	 * view of the same name and side is the same lock.
	 */
	private final class OwnedLock implements FencedLock {

		private final String name;

		private final boolean read;

		OwnedLock(String name, boolean read) {
			this.name = name;
			this.read = read;
		}

		@Override
		public String name() {
			return this.name;
		}

		@Override
		public void lock() {
			boolean locked = false;
			boolean interrupted = false;
			while (!locked) {
				try {
					locked = lock(Long.MAX_VALUE);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}

		@Override
		public void lockInterruptibly() throws InterruptedException {
			tryLock(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
		}

		@Override
		public boolean tryLock() {
			return tryLock(Duration.ZERO);
		}

		@Override
		public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			return lock(unit.toNanos(time));
		}

		@Override
		public boolean tryLock(Duration waitTime) {
			try {
				return lock(waitTime.toNanos());
			}
			catch (InterruptedException ex) {
				throw interrupted(this.name, ex);
			}
		}

		@Override
		public void unlock() {
			Hold hold = ownedHold();
			if (--hold.reentries == 0) {
				ownedHolds().remove(this.name);
				hold.release();
			}
		}

		@Override
		public boolean isHeldByCurrentThread() {
			return ownedHolds().containsKey(this.name);
		}

		@Override
		public int getHoldCount() {
			Hold hold = ownedHolds().get(this.name);
			return (hold != null) ? hold.reentries : 0;
		}

		@Override
		public long fencingToken() {
			return ownedHold().fencingToken;
		}

		@Override
		public LockLease currentHold() {
			return new HoldLease(ownedHold(), this::unlock);
		}

		/**
		 * Take the name's side for the current thread, or reenter its hold. A writer
		 * takes its read share out of its write hold; a reader cannot take the write
		 * side.
		 */
		private boolean lock(long waitNanos) throws InterruptedException {
			Map<String, Hold> owned = ownedHolds();
			Hold hold = owned.get(this.name);
			if (hold == null) {
				Hold writeHold = InMemoryLockRegistry.this.owned.get().get(this.name);
				if (!this.read && InMemoryLockRegistry.this.ownedReads.get().containsKey(this.name)) {
					throw new IllegalMonitorStateException("The read lock of '" + this.name
							+ "' is held by this thread, which cannot take the write lock");
				}
				if (this.read && writeHold != null) {
					hold = held(writeHold.share());
				}
				else {
					hold = take(this.name, lockSlot(this.name), this.read ? 1 : ALL_PERMITS, waitNanos);
				}
				if (hold == null) {
					return false;
				}
				owned.put(this.name, hold);
			}
			hold.reentries++;
			return true;
		}

		private Map<String, Hold> ownedHolds() {
			return (this.read ? InMemoryLockRegistry.this.ownedReads : InMemoryLockRegistry.this.owned).get();
		}

		private Hold ownedHold() {
			Hold hold = ownedHolds().get(this.name);
			if (hold == null) {
				throw new IllegalMonitorStateException(
						"Lock '" + this.name + "' is not held by thread '" + Thread.currentThread().getName() + "'");
			}
			return hold;
		}

	}

	/**
	 * The two sides of one name's slot.
	 */
	private final class ReadWriteLock implements FencedReadWriteLock {

		private final String name;

		ReadWriteLock(String name) {
			this.name = name;
		}

		@Override
		public String name() {
			return this.name;
		}

		@Override
		public FencedLock readLock() {
			return new OwnedLock(this.name, true);
		}

		@Override
		public FencedLock writeLock() {
			return new OwnedLock(this.name, false);
		}

	}

	/**
	 * A semaphore's view of its slot: one permit per lease.
	 */
	private final class InMemorySemaphore implements DistributedSemaphore {

		private final String name;

		private final int permits;

		InMemorySemaphore(String name, int permits) {
			this.name = name;
			this.permits = permits;
		}

		@Override
		public String name() {
			return this.name;
		}

		@Override
		public int permits() {
			return this.permits;
		}

		@Override
		public Optional<LockLease> tryAcquire(Duration waitTime) {
			Slot slot = InMemoryLockRegistry.this.semaphores.computeIfAbsent(this.name,
					(key) -> new Slot(this.permits));
			try {
				return Optional.ofNullable(take(this.name, slot, 1, waitTime.toNanos()))
					.map((hold) -> new HoldLease(hold, hold::release));
			}
			catch (InterruptedException ex) {
				throw interrupted(this.name, ex);
			}
		}

	}

}
