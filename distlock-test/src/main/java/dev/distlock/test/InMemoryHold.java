package dev.distlock.test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.distlock.HoldKind;
import dev.distlock.LockLostException;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import org.jspecify.annotations.Nullable;

/**
 * One hold of a name in an {@link InMemoryLockStore}: a lock, a read share or a permit,
 * with its fencing token and its lease. Its state and lease change under its
 * {@link InMemorySlot}'s monitor, and are read from any thread.
 */
final class InMemoryHold {

	final LockName name;

	final HoldKind kind;

	final long fencingToken;

	final InMemorySlot slot;

	/** The registry that took the hold: it renews the hold and reports its loss. */
	final InMemoryLockRegistry registry;

	final Instant acquiredAt = Instant.now();

	final long acquiredNanos = System.nanoTime();

	/** How long the name stays taken after an early release, in nanoseconds. */
	final long minHoldNanos;

	/** How long the name stays taken after the lease ran out, in nanoseconds. */
	final long lockDelayNanos;

	/** Whether the lease is fixed: never renewed, it runs out unless extended. */
	final boolean fixed;

	/** Name of the owning thread, or {@code null} for an owner-free lease. */
	volatile @Nullable String owner;

	/** Reentry count of the owning thread; read and written by that thread only. */
	int reentries;

	volatile LockObserver.Hold observation = LockObserver.Hold.NONE;

	private volatile State state = State.HELD;

	private volatile long leaseNanos;

	/** Whether the lease runs out at {@link #deadline}: fixed, or not being renewed. */
	private volatile boolean bounded;

	private volatile long deadline;

	private volatile String lossReason = "";

	/** Completed when the loss is reported, cancelled when released first. */
	private final CompletableFuture<LockLostException> loss = new CompletableFuture<>();

	InMemoryHold(LockName name, HoldKind kind, long fencingToken, InMemorySlot slot, InMemoryLockRegistry registry,
			Lease lease) {
		this.name = name;
		this.kind = kind;
		this.fencingToken = fencingToken;
		this.slot = slot;
		this.registry = registry;
		this.minHoldNanos = lease.minHold.toNanos();
		this.lockDelayNanos = lease.lockDelay.toNanos();
		this.fixed = lease.fixed;
		this.leaseNanos = lease.time.toNanos();
		this.bounded = lease.fixed || registry.renewalsPaused();
		this.deadline = this.acquiredNanos + this.leaseNanos;
	}

	/**
	 * Return whether the hold is held and within its lease.
	 */
	boolean isValid() {
		return this.state == State.HELD && !isPastLease(System.nanoTime());
	}

	State state() {
		return this.state;
	}

	boolean isPastLease(long now) {
		return this.bounded && now - this.deadline >= 0;
	}

	/**
	 * Return what is left of the lease: all of it while the registry renews it.
	 */
	Duration remainingLease(long now) {
		return Duration.ofNanos(this.bounded ? Math.max(0, this.deadline - now) : this.leaseNanos);
	}

	/**
	 * Return whether the registry renews the lease: it never runs out while held.
	 */
	boolean isRenewed() {
		return !this.bounded;
	}

	/**
	 * Return when the lease runs out, if it does, in {@link System#nanoTime()}.
	 */
	@Nullable Long deadline() {
		return this.bounded ? this.deadline : null;
	}

	/**
	 * Start the lease over from now, as a renewal does, and stop renewing it: it runs out
	 * a lease from now unless renewed again. Called under the slot's monitor.
	 */
	void runOutFrom(long now) {
		if (!this.bounded) {
			this.bounded = true;
			this.deadline = now + this.leaseNanos;
		}
	}

	/**
	 * Renew the lease from now on, until it is released or lost. Called under the slot's
	 * monitor.
	 */
	void keepRenewed() {
		if (!this.fixed) {
			this.bounded = false;
		}
	}

	/**
	 * Lengthen the lease to the given time from now, never shortening it: a fixed lease
	 * runs out then, a renewed one is renewed with the longer lease. Called under the
	 * slot's monitor.
	 */
	void extend(long now, long nanos) {
		this.leaseNanos = Math.max(this.leaseNanos, nanos);
		if (this.bounded && this.deadline - (now + nanos) < 0) {
			this.deadline = now + nanos;
		}
	}

	/**
	 * Mark the hold lost for the given reason. Called under the slot's monitor.
	 * @return whether it was held until now
	 */
	boolean markLost(String reason) {
		if (this.state != State.HELD) {
			return false;
		}
		this.lossReason = reason;
		this.state = State.LOST;
		return true;
	}

	/**
	 * Mark the hold released. Called under the slot's monitor.
	 * @return the state it had
	 */
	State markReleased() {
		State before = this.state;
		this.state = State.RELEASED;
		if (before == State.HELD) {
			this.loss.cancel(false);
		}
		return before;
	}

	String lossReason() {
		return this.lossReason;
	}

	/**
	 * Run the given action when the hold is found lost, at once if it was; never if it is
	 * released first.
	 */
	void onLoss(Consumer<? super LockLostException> action) {
		this.loss.thenAccept(action);
	}

	/**
	 * Run the loss actions with the given exception.
	 */
	void lost(LockLostException exception) {
		this.loss.complete(exception);
	}

	/**
	 * Return the exception that tells this hold is no longer held.
	 * @param message the message, naming the lock and the fencing token
	 */
	LockLostException lostException(String message) {
		return new LockLostException(this.name.value(), this.fencingToken, message);
	}

	/**
	 * Where a hold stands.
	 */
	enum State {

		HELD, LOST, RELEASED

	}

	/**
	 * The lease terms of a new hold.
	 *
	 * @param time the lease time
	 * @param fixed whether the lease is never renewed
	 * @param minHold how long the name stays taken after an early release
	 * @param lockDelay how long the name stays taken after the lease ran out
	 */
	record Lease(Duration time, boolean fixed, Duration minHold, Duration lockDelay) {

	}

}
