package dev.distlock.redis.renewal;

import org.jspecify.annotations.Nullable;

/**
 * A hold as lease renewal sees it: whether it is still held, how long it is valid, the
 * terms it is renewed with, and how a renewal is recorded.
 */
public interface RenewedHold {

	/**
	 * Return the name of the lock held, for the logs.
	 * @return the lock's name
	 */
	String lockName();

	/**
	 * Return whether the hold is held, as far as this JVM knows: not released, not found
	 * lost.
	 * @return whether the hold is held
	 */
	boolean isHeld();

	/**
	 * Return whether the hold was released in this JVM while valid and Redis has not
	 * answered its release yet: the release may reach Redis after the hold's validity
	 * without a renewal, having waited behind other commands.
	 * @return whether the hold's release is on its way to Redis
	 */
	boolean isReleasing();

	/**
	 * Return whether the watchdog renews the hold, rather than its fixed lease running
	 * out.
	 * @return whether the hold is in watchdog mode
	 */
	boolean isRenewed();

	/**
	 * Return the lease and lock delay the hold is renewed with.
	 * @return the hold's terms
	 */
	LeaseTerms terms();

	/**
	 * Return until when the hold is valid, in {@link System#nanoTime()}.
	 * @return the end of the hold's validity
	 */
	long validUntilNanos();

	/**
	 * Record a renewal whose command was sent at the given time with the given terms;
	 * never shortens the validity.
	 * @param sentNanos when the renewal was sent, in {@link System#nanoTime()}
	 * @param sentTerms the terms it was sent with
	 */
	void extend(long sentNanos, LeaseTerms sentTerms);

	/**
	 * Return why the last renewal of the hold failed; written by the watchdog only.
	 * @return the failure, or {@code null} if the last renewal succeeded
	 */
	@Nullable String renewalFailure();

	/**
	 * Record the outcome of a renewal; called by the watchdog only.
	 * @param failure why it failed, or {@code null} if it succeeded
	 */
	void renewalFailure(@Nullable String failure);

}
