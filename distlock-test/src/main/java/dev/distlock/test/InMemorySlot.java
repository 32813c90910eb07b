package dev.distlock.test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.stream.LongStream;

import dev.distlock.HoldKind;
import dev.distlock.LockName;
import org.jspecify.annotations.Nullable;

/**
 * What Redis keeps for one name, kept in the JVM: the holds of a lock (its write hold or
 * its read shares) or of a semaphore (its permits), the last fencing token given, the
 * places kept after a release or after a lease ran out, and the waiters, served first
 * come first served. Every change happens under the slot's monitor and wakes the waiters;
 * loss reports are handed to the event threads after the monitor is left, or by a waiter
 * before it waits again.
 */
final class InMemorySlot {

	private final InMemoryLockStore store;

	private final ReentrantLock monitor = new ReentrantLock();

	private final Condition changed = this.monitor.newCondition();

	private final List<InMemoryHold> holds = new ArrayList<>();

	private final Deque<Object> waiters = new ArrayDeque<>();

	private long lastToken;

	/**
	 * The places kept by nobody: after a release for the minimum hold time, or after a
	 * lease ran out for the lock delay. A lock's place keeps everyone out, a read share's
	 * the writers, a permit's one permit of a semaphore.
	 */
	private final List<Place> kept = new ArrayList<>();

	InMemorySlot(InMemoryLockStore store) {
		this.store = store;
	}

	/**
	 * Take a hold, waiting at most the given time behind the waiters that came before.
	 * @param claim what is taken, and by whom
	 * @param waitNanos how long to wait; zero or less tries once without queueing
	 * @return the hold, or {@code null} if not taken in time
	 * @throws InterruptedException if interrupted while waiting; nothing is taken
	 */
	@Nullable InMemoryHold take(Claim claim, long waitNanos) throws InterruptedException {
		List<InMemoryHold> lost = new ArrayList<>();
		this.monitor.lockInterruptibly();
		try {
			long now = System.nanoTime();
			reap(now, lost);
			if (isDowngrade(claim) || (this.waiters.isEmpty() && fits(claim, now))) {
				return grant(claim, now);
			}
			return (waitNanos > 0) ? await(claim, now, now + waitNanos, lost) : null;
		}
		finally {
			this.monitor.unlock();
			report(lost);
		}
	}

	private @Nullable InMemoryHold await(Claim claim, long now, long deadline, List<InMemoryHold> lost)
			throws InterruptedException {
		Object ticket = new Object();
		this.waiters.addLast(ticket);
		try {
			while (deadline - now > 0) {
				// Losses found are told now, not when this waiter stops waiting; telling
				// only hands them to the event threads
				report(lost);
				lost.clear();
				this.changed.awaitNanos(Math.min(deadline - now, nextChangeIn(now)));
				now = System.nanoTime();
				reap(now, lost);
				if (this.waiters.peekFirst() == ticket && fits(claim, now)) {
					this.waiters.removeFirst();
					return grant(claim, now);
				}
			}
			return null;
		}
		finally {
			this.waiters.remove(ticket);
			// The next waiter may fit now: a reader behind a reader, or any behind a
			// waiter that gave up
			this.changed.signalAll();
		}
	}

	/**
	 * Return whether the claim is a read share of the thread that holds the write side:
	 * it comes in at once, ahead of the waiters, while that write hold is held.
	 */
	private boolean isDowngrade(Claim claim) {
		InMemoryHold writeHold = claim.writeHold();
		return writeHold != null && this.holds.contains(writeHold);
	}

	private boolean fits(Claim claim, long now) {
		return switch (claim.kind()) {
			case EXCLUSIVE -> this.holds.isEmpty() && keptPlaces(now).isEmpty();
			case READ_SHARE -> this.holds.stream().noneMatch((hold) -> hold.kind == HoldKind.EXCLUSIVE)
					&& keptPlaces(now).stream().noneMatch((place) -> place.kind == HoldKind.EXCLUSIVE);
			case PERMIT -> this.holds.size() + keptPlaces(now).size() < claim.permits();
		};
	}

	private InMemoryHold grant(Claim claim, long now) {
		InMemoryHold hold = new InMemoryHold(claim.name(), claim.kind(), ++this.lastToken, this, claim.registry(),
				claim.lease());
		this.holds.add(hold);
		scheduleReap(hold, now);
		return hold;
	}

	/**
	 * Release a hold; a hold released before does nothing.
	 * @return whether it was held until now; if it was lost, the loss is reported
	 */
	boolean release(InMemoryHold hold) {
		List<InMemoryHold> lost = new ArrayList<>();
		this.monitor.lock();
		try {
			long now = System.nanoTime();
			reap(now, lost);
			InMemoryHold.State before = hold.markReleased();
			if (before == InMemoryHold.State.HELD) {
				this.holds.remove(hold);
				keep(hold, hold.acquiredNanos + hold.minHoldNanos, now);
				this.changed.signalAll();
			}
			return before == InMemoryHold.State.HELD;
		}
		finally {
			this.monitor.unlock();
			report(lost);
		}
	}

	/**
	 * Change the lease of held holds under the monitor, and watch their new ends.
	 */
	void changeLeases(List<InMemoryHold> changing, Consumer<InMemoryHold> change) {
		List<InMemoryHold> lost = new ArrayList<>();
		this.monitor.lock();
		try {
			long now = System.nanoTime();
			// A lease that ran out is lost, whatever happens to the renewals now
			reap(now, lost);
			for (InMemoryHold hold : changing) {
				if (hold.state() == InMemoryHold.State.HELD) {
					change.accept(hold);
					scheduleReap(hold, now);
				}
			}
			this.changed.signalAll();
		}
		finally {
			this.monitor.unlock();
			report(lost);
		}
	}

	/**
	 * Extend a hold's lease to the given time from now.
	 * @return whether the hold was held and within its lease, and so extended
	 */
	boolean extend(InMemoryHold hold, Duration leaseTime) {
		this.monitor.lock();
		try {
			long now = System.nanoTime();
			if (hold.state() != InMemoryHold.State.HELD || hold.isPastLease(now)) {
				return false;
			}
			hold.extend(now, leaseTime.toNanos());
			scheduleReap(hold, now);
			return true;
		}
		finally {
			this.monitor.unlock();
		}
	}

	/**
	 * Free the name of every hold now, as if their leases ran out unnoticed and the name
	 * was taken from them: each is lost and reported, and the name is free at once.
	 * @return the fencing token of the last hold, or empty if none held the name
	 */
	OptionalLong expireAll(String reason) {
		List<InMemoryHold> lost = new ArrayList<>();
		this.monitor.lock();
		try {
			long now = System.nanoTime();
			reap(now, lost);
			OptionalLong lastToken = (this.holds.isEmpty() && keptPlaces(now).isEmpty()) ? OptionalLong.empty()
					: OptionalLong.of(this.lastToken);
			for (InMemoryHold hold : this.holds) {
				hold.markLost(reason);
				lost.add(hold);
			}
			this.holds.clear();
			this.kept.clear();
			this.changed.signalAll();
			return lastToken;
		}
		finally {
			this.monitor.unlock();
			report(lost);
		}
	}

	/**
	 * Make one hold lost now, and free the name of it at once.
	 */
	void expire(InMemoryHold hold, String reason) {
		this.monitor.lock();
		try {
			if (!hold.markLost(reason)) {
				return;
			}
			this.holds.remove(hold);
			this.changed.signalAll();
		}
		finally {
			this.monitor.unlock();
		}
		hold.registry.reportLost(hold);
	}

	/**
	 * Return how long the name stays taken: the longest lease left of its holds, or what
	 * is left of the time it is kept after a release; empty when it is free.
	 */
	Optional<Duration> remainingLease() {
		List<InMemoryHold> lost = new ArrayList<>();
		this.monitor.lock();
		try {
			long now = System.nanoTime();
			reap(now, lost);
			Optional<Duration> held = this.holds.stream()
				.map((hold) -> hold.remainingLease(now))
				.max(Duration::compareTo);
			OptionalLong kept = keptLeft(now).max();
			return (held.isPresent() || kept.isEmpty()) ? held : Optional.of(Duration.ofNanos(kept.getAsLong()));
		}
		finally {
			this.monitor.unlock();
			report(lost);
		}
	}

	/**
	 * Mark lost every hold whose lease ran out, and report the losses.
	 */
	void reap() {
		List<InMemoryHold> lost = new ArrayList<>();
		this.monitor.lock();
		try {
			reap(System.nanoTime(), lost);
		}
		finally {
			this.monitor.unlock();
			report(lost);
		}
	}

	private void reap(long now, List<InMemoryHold> lost) {
		for (InMemoryHold hold : List.copyOf(this.holds)) {
			if (hold.isPastLease(now)) {
				hold.markLost(hold.fixed
						? "its fixed lease of " + hold.remainingLease(hold.acquiredNanos).toMillis() + " ms ran out"
						: "its lease ran out without a renewal");
				this.holds.remove(hold);
				Long deadline = hold.deadline();
				keep(hold, ((deadline != null) ? deadline : now) + hold.lockDelayNanos, now);
				lost.add(hold);
				this.changed.signalAll();
			}
		}
	}

	private void keep(InMemoryHold hold, long until, long now) {
		if (until - now > 0) {
			this.kept.add(new Place(hold.kind, until));
		}
	}

	/**
	 * Return the places kept now, forgetting those given up.
	 */
	private List<Place> keptPlaces(long now) {
		this.kept.removeIf((place) -> now - place.until >= 0);
		return this.kept;
	}

	/**
	 * Return what is left of each place kept now.
	 */
	private LongStream keptLeft(long now) {
		return keptPlaces(now).stream().mapToLong((place) -> place.until - now);
	}

	/**
	 * Return how long until a lease runs out or a kept place is given up: when a waiter
	 * looks again without being signalled.
	 */
	private long nextChangeIn(long now) {
		long next = keptLeft(now).min().orElse(Long.MAX_VALUE);
		for (InMemoryHold hold : this.holds) {
			Long deadline = hold.deadline();
			if (deadline != null) {
				next = Math.min(next, deadline - now);
			}
		}
		return Math.max(next, 1);
	}

	private void scheduleReap(InMemoryHold hold, long now) {
		Long deadline = hold.deadline();
		if (deadline != null) {
			this.store.schedule(this::reap, Math.max(deadline - now, 0), TimeUnit.NANOSECONDS);
		}
	}

	private static void report(List<InMemoryHold> lost) {
		lost.forEach((hold) -> hold.registry.reportLost(hold));
	}

	/**
	 * A place kept by nobody.
	 *
	 * @param kind the kind of the hold that kept it
	 * @param until when it is given up, in {@link System#nanoTime()}
	 */
	private record Place(HoldKind kind, long until) {

	}

	/**
	 * What a waiter asks a slot for.
	 *
	 * @param name the name, as the caller gave it
	 * @param kind the kind of hold
	 * @param permits for a permit, how many holds the caller's semaphore allows
	 * @param registry the registry that takes the hold
	 * @param lease the hold's lease terms
	 * @param writeHold for a read share, the write hold of the caller's thread, if any
	 */
	record Claim(LockName name, HoldKind kind, int permits, InMemoryLockRegistry registry, InMemoryHold.Lease lease,
			@Nullable InMemoryHold writeHold) {

	}

}
