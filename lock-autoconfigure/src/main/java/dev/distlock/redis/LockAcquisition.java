package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.redis.renewal.LeaseTerms;
import org.jspecify.annotations.Nullable;

/**
 * The acquisition of a lock by the thread of this JVM that holds its local permit: the
 * acquire script, and the offer to take a hold that a releasing thread of this JVM hands
 * over ({@link HandOver}).
 *
 * <p>
 * A waiter that stops by an exception (interrupt, Redis failure) abandons its offer, and
 * a hold handed over to it nonetheless is given back in Redis at once, so that a
 * hand-over never leaves a lock that nobody holds.
 */
final class LockAcquisition implements Acquisition {

	private final RedisLockCommands commands;

	private final LocalLock lock;

	private final LeaseOptions options;

	private final LeaseTerms terms;

	/** The token the caller takes the lock and waits under. */
	private final String token = LockTokens.next();

	private Handoff handoff;

	/**
	 * Create the acquisition of the current thread and offer to take a local hand-over.
	 */
	LockAcquisition(RedisLockCommands commands, LocalLock lock, LeaseOptions options, LeaseTerms terms) {
		this.commands = commands;
		this.lock = lock;
		this.options = options;
		this.terms = terms;
		this.handoff = offer();
	}

	@Override
	public LockId id() {
		return this.lock.id;
	}

	/**
	 * Return whether no thread of this JVM holds the lock: its release hands it over to
	 * this waiter or wakes it, so the waiter need not wait in Redis' queue meanwhile.
	 */
	@Override
	public boolean mayQueue() {
		RedisHold holder = this.lock.holder.get();
		return holder == null || !holder.isValid();
	}

	@Override
	public CompletableFuture<RedisLockCommands.Grant> send(Queueing queueing) {
		return this.commands.acquire(this.lock.id, this.token, this.terms, queueing);
	}

	@Override
	public String describe() {
		return "lock '" + this.lock.id.name + "'";
	}

	/**
	 * Return the hold of an attempt that answered its fencing token.
	 */
	@Override
	public RedisHold hold(long reply, long sentNanos) {
		return new RedisHold(this.lock.id, HoldKind.EXCLUSIVE, this.token, reply, sentNanos, this.terms, this.options);
	}

	/**
	 * Return the hold of a grant to this waiter heard after its last attempt, within a
	 * quarter of the attempt's claim time, so that the take-up has the rest of it to
	 * reach Redis even on a busy machine; never on a quorum, whose nodes each grant on
	 * their own.
	 */
	@Override
	public @Nullable RedisHold startOnGrant(ReleaseSignals.Subscription subscription, Queueing last, long sentNanos) {
		long fencingToken = subscription.granted(this.token, last.attempt());
		if (fencingToken <= 0 || !this.commands.startsOnGrant()
				|| System.nanoTime() - sentNanos >= TimeUnit.MILLISECONDS.toNanos(last.claimMillis()) / 4) {
			return null;
		}
		return RedisHold.startedOnGrant(this.lock.id, this.token, fencingToken, sentNanos, last.claimMillis(),
				this.terms, this.options);
	}

	/**
	 * Return the lock key's remaining TTL, at least 1 ms.
	 */
	@Override
	public long recheckMillis(long reply) {
		return Math.max(1, -reply);
	}

	@Override
	public void giveBack() {
		this.commands.giveBack(this.lock.id, this.token, this.terms);
	}

	@Override
	public @Nullable RedisHold handedOver() {
		if (!this.handoff.isClaimed()) {
			return null;
		}
		RedisHold handedOver = this.handoff.awaitCompletion();
		if (handedOver == null) {
			this.handoff = offer();
		}
		return handedOver;
	}

	@Override
	public boolean isClaimed() {
		return this.handoff.isClaimed();
	}

	/**
	 * Return the hold of the last attempt unless a releasing thread claimed the offer;
	 * then the handed-over one. Both succeeded only when a lease ran out in between: the
	 * attempt's hold is given back.
	 */
	@Override
	public @Nullable RedisHold settle(@Nullable RedisHold acquired) {
		if (this.handoff.withdraw()) {
			return acquired;
		}
		RedisHold handedOver = this.handoff.awaitCompletion();
		if (handedOver == null) {
			return acquired;
		}
		if (acquired != null) {
			this.commands.giveBack(acquired.id, acquired.token, acquired.terms());
		}
		return handedOver;
	}

	@Override
	public void abandon() {
		RedisHold orphan = this.handoff.abandon();
		if (orphan != null) {
			this.commands.giveBack(this.lock.id, orphan.token, orphan.terms());
		}
	}

	@Override
	public void close() {
		this.lock.waiter.compareAndSet(this.handoff, null);
	}

	private Handoff offer() {
		Handoff offered = new Handoff(this.options, this.terms, this.token);
		this.lock.waiter.set(offered);
		return offered;
	}

}
