package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.HoldKind;
import dev.distlock.LeaseOptions;
import dev.distlock.redis.connection.ReplicatedReply;
import dev.distlock.redis.renewal.LeaseTerms;
import org.jspecify.annotations.Nullable;

/**
 * What one call of {@link RedisAcquirer} takes, and how: the token it takes the hold and
 * waits under, the script of its kind of hold and what the script's reply means.
 *
 * <p>
 * A lock's waiter offers to take a hold that a releasing thread of this JVM hands over
 * ({@link HandOver}) from when it starts waiting; the first waiter of this JVM
 * ({@link LocalLock}) tries in Redis too, and may start on a grant's message. A waiter
 * that stops by an exception (interrupt, Redis failure) abandons its offer, and a hold
 * handed over to it nonetheless is given back in Redis at once, so that a hand-over never
 * leaves a lock that nobody holds. A shared hold (a read share, a semaphore permit) is
 * taken in watchdog mode by the script of its {@link SharedAttempt}, under a token of
 * each thread's own, so many threads of one JVM may hold shares of one name; it has
 * neither a local entry nor an offer.
 */
final class Acquisition {

	final LockId id;

	private final RedisLockCommands commands;

	/** The lease and lock delay of the hold, taken or handed over. */
	final LeaseTerms terms;

	/** The options of the hold, taken or handed over. */
	final LeaseOptions options;

	/** The script and arguments of a shared hold; {@code null} for a lock. */
	private final @Nullable SharedAttempt attempt;

	/** This JVM's entry of a lock; {@code null} for a shared hold. */
	private final @Nullable LocalLock lock;

	/** The token the caller takes the hold, waits and is handed a lock over under. */
	final String token = LockTokens.next();

	/** The offer to take a lock's local hand-over; {@code null} for a shared hold. */
	private final @Nullable Handoff handoff;

	/**
	 * Create the acquisition of a lock by the current thread, and offer to take a local
	 * hand-over.
	 */
	Acquisition(RedisLockCommands commands, LocalLock lock, LeaseOptions options, LeaseTerms terms) {
		this(commands, lock.id, terms, options, null, lock);
	}

	/**
	 * Create the acquisition of a shared hold.
	 */
	Acquisition(RedisLockCommands commands, SharedAttempt attempt, LeaseTerms terms) {
		this(commands, attempt.id(), terms, LeaseOptions.WATCHDOG, attempt, null);
	}

	private Acquisition(RedisLockCommands commands, LockId id, LeaseTerms terms, LeaseOptions options,
			@Nullable SharedAttempt attempt, @Nullable LocalLock lock) {
		this.commands = commands;
		this.id = id;
		this.terms = terms;
		this.options = options;
		this.attempt = attempt;
		this.lock = lock;
		this.handoff = (lock != null) ? new Handoff(this) : null;
		if (lock != null) {
			lock.offer(this.handoff);
		}
	}

	/**
	 * Wait until this lock's waiter is the first of this JVM's, which tries in Redis, or
	 * a releasing thread claimed its offer; a shared hold is tried at once.
	 * @return {@code false} if the deadline passed first
	 */
	boolean awaitTurn(Deadline deadline) throws InterruptedException {
		return this.lock == null || this.lock.awaitTurn(this.handoff, deadline);
	}

	/**
	 * Return how long this JVM's hold of the lock stays valid at most, or 0 if there is
	 * none: its release hands the lock over to this waiter or wakes it, so the waiter
	 * need not try in Redis meanwhile, nor join the queue there.
	 */
	long localHoldNanos() {
		RedisHold holder = (this.lock != null) ? this.lock.holder.get() : null;
		return (holder != null && holder.isValid()) ? Math.max(1, holder.validUntilNanos() - System.nanoTime()) : 0;
	}

	/**
	 * Send the attempt script once.
	 * @param queueing whether and how the caller waits in the queue when refused
	 * @return the grant: the fencing token when taken, otherwise at most 0
	 */
	CompletableFuture<ReplicatedReply> send(Queueing queueing) {
		return (this.attempt != null) ? this.commands.acquireShare(this.attempt, this.token, this.terms, queueing)
				: this.commands.acquire(this.id, this.token, this.terms, queueing);
	}

	/**
	 * Return what an attempt tries to take, for the error message.
	 */
	String describe() {
		return (this.attempt != null) ? this.attempt.kind().label() + " hold of '" + this.id.name + "'"
				: "lock '" + this.id.name + "'";
	}

	/**
	 * Return the hold of an attempt that answered its fencing token.
	 * @param sentNanos when the attempt was sent
	 */
	RedisHold hold(long reply, long sentNanos) {
		HoldKind kind = (this.attempt != null) ? this.attempt.kind() : HoldKind.EXCLUSIVE;
		return new RedisHold(this.id, kind, this.token, reply, sentNanos, this.terms, this.options);
	}

	/**
	 * Return the hold of a grant to this lock's waiter heard after its last attempt,
	 * within a quarter of the attempt's claim time, so that the take-up has the rest of
	 * it to reach Redis even on a busy machine; never on a quorum, whose nodes each grant
	 * on their own. Otherwise the next attempt takes the grant up.
	 * @param subscription the waiter's subscription, which keeps the grant heard last
	 * @param last how the last attempt queued the waiter
	 * @param sentNanos when the last attempt was sent
	 * @return the hold, or {@code null}
	 */
	@Nullable RedisHold startOnGrant(ReleaseSignals.Subscription subscription, Queueing last, long sentNanos) {
		if (this.lock == null) {
			return null;
		}
		long fencingToken = subscription.granted(this.token, last.attempt());
		if (fencingToken <= 0 || !this.commands.startsOnGrant()
				|| System.nanoTime() - sentNanos >= TimeUnit.MILLISECONDS.toNanos(last.claimMillis()) / 4) {
			return null;
		}
		return RedisHold.startedOnGrant(this.id, this.token, fencingToken, sentNanos, last.claimMillis(), this.terms,
				this.options);
	}

	/**
	 * Return how long to wait, at most, before the next attempt after a refusal: a lock
	 * key's remaining TTL, at least 1 ms; when the first holder of shared holds expires,
	 * or a whole re-check when unknown.
	 * @param reply the refusal: minus the milliseconds until the next attempt is worth
	 * it, or 0 when unknown
	 */
	long recheckMillis(long reply) {
		if (this.lock != null) {
			return Math.max(1, -reply);
		}
		return (reply < 0) ? -reply : RedisAcquirer.RECHECK_MILLIS;
	}

	/**
	 * Give back the token of this acquisition, which the caller does not keep: held by an
	 * attempt without an answer, granted, admitted, or waiting in the queue.
	 */
	void giveBack() {
		if (this.attempt != null) {
			this.commands.giveBack(this.id, this.attempt.kind(), this.token, this.terms);
		}
		else {
			this.commands.giveBack(this.id, this.token, this.terms);
		}
	}

	/**
	 * Return the hold a releasing thread of this JVM handed over, or {@code null} if none
	 * did; a hand-over that failed left the offer open.
	 */
	@Nullable RedisHold handedOver() {
		return isClaimed() ? held(this.handoff.awaitCompletion()) : null;
	}

	/**
	 * Return whether a releasing thread of this JVM claimed the offer to hand its hold
	 * over.
	 */
	boolean isClaimed() {
		return this.handoff != null && this.handoff.isClaimed();
	}

	/**
	 * Return the hold the caller ends up with once it stops waiting: the one its last
	 * attempt took unless a releasing thread claimed the offer, then the handed-over one.
	 * Both succeeded only when a lease ran out in between: the attempt's hold is given
	 * back.
	 * @param acquired the hold of the last attempt, or {@code null}
	 */
	@Nullable RedisHold settle(@Nullable RedisHold acquired) {
		RedisHold handedOver = null;
		// A hand-over that failed opens the offer again: withdraw it then
		while (handedOver == null && this.handoff != null && !this.handoff.withdraw()) {
			handedOver = this.handoff.awaitCompletion();
		}
		if (handedOver == null) {
			return held(acquired);
		}
		if (acquired != null) {
			this.commands.giveBack(acquired.id, acquired.token, acquired.terms());
		}
		return held(handedOver);
	}

	/**
	 * Stop taking hand-overs because the caller stops by an exception, giving back a hold
	 * handed over already.
	 */
	void abandon() {
		RedisHold orphan = (this.handoff != null) ? this.handoff.abandon() : null;
		if (orphan != null) {
			this.commands.giveBack(this.id, orphan.token, orphan.terms());
		}
	}

	/**
	 * Take the caller's offer, which no releasing thread claims any more, out of this
	 * JVM's queue for the lock, and wake the next waiter.
	 */
	void close() {
		if (this.lock != null) {
			this.lock.remove(this.handoff);
		}
	}

	/**
	 * Record a lock's hold as this JVM's before the next waiter runs, so that it waits
	 * for the hold's release rather than trying in Redis.
	 */
	private @Nullable RedisHold held(@Nullable RedisHold hold) {
		if (hold != null && this.lock != null) {
			this.lock.holder.set(hold);
		}
		return hold;
	}

}
