package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * What one call of {@link RedisAcquirer} takes, and how: the script of its kind of hold
 * and what the script's reply means. A lock also takes a hold that a releasing thread of
 * this JVM hands over, and starts on a grant's message; a shared hold has neither, which
 * the default methods say.
 */
interface Acquisition {

	/**
	 * Return the lock, read/write lock or semaphore taken: its key names the wait queue.
	 */
	LockId id();

	/**
	 * Return whether an attempt may wait in the queue in Redis now; a waiter that need
	 * not (a thread of this JVM holds the lock, and hands it over or wakes the waiter)
	 * joins it only once another process has the lock.
	 */
	default boolean mayQueue() {
		return true;
	}

	/**
	 * Send the attempt script once, under the token this acquisition takes the hold and
	 * waits under.
	 * @param queueing whether and how the caller waits in the queue when refused
	 * @return the grant: positive when taken, otherwise at most 0
	 */
	CompletableFuture<RedisLockCommands.Grant> send(Queueing queueing);

	/**
	 * Return what an attempt tries to take, for the error message.
	 */
	String describe();

	/**
	 * Return the hold a positive reply of the last attempt gave.
	 * @param sentNanos when the attempt was sent
	 */
	RedisHold hold(long reply, long sentNanos);

	/**
	 * Return the hold that a grant heard on its message gives, if the acquisition may
	 * start on one and heard one in time; otherwise its next attempt takes the grant up.
	 * @param subscription the waiter's subscription, which keeps the grant heard last
	 * @param last how the last attempt queued the waiter
	 * @param sentNanos when the last attempt was sent
	 * @return the hold, or {@code null}
	 */
	default @Nullable RedisHold startOnGrant(ReleaseSignals.Subscription subscription, Queueing last, long sentNanos) {
		return null;
	}

	/**
	 * Return how long to wait, at most, before the next attempt after a refusal.
	 * @param reply the refusal: minus the milliseconds until the next attempt is worth
	 * it, or 0 when unknown
	 */
	long recheckMillis(long reply);

	/**
	 * Give back the token of this acquisition, which the caller does not keep: held by an
	 * attempt without an answer, granted, admitted, or waiting in the queue.
	 */
	void giveBack();

	/**
	 * Return the hold a releasing thread of this JVM handed over, or {@code null} if none
	 * did; offers to take one again when a hand-over failed.
	 */
	default @Nullable RedisHold handedOver() {
		return null;
	}

	/**
	 * Return whether a releasing thread of this JVM claimed the offer to hand its hold
	 * over.
	 */
	default boolean isClaimed() {
		return false;
	}

	/**
	 * Return the hold the caller ends up with once it stops waiting: the one its last
	 * attempt took, or a hold handed over meanwhile.
	 * @param acquired the hold of the last attempt, or {@code null}
	 */
	default @Nullable RedisHold settle(@Nullable RedisHold acquired) {
		return acquired;
	}

	/**
	 * Stop taking hand-overs because the caller stops by an exception, giving back a hold
	 * handed over already.
	 */
	default void abandon() {
	}

	/**
	 * Withdraw what the caller offered to this JVM's releasing threads.
	 */
	default void close() {
	}

}
