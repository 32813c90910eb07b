package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;

import dev.distlock.LeaseOptions;
import dev.distlock.redis.renewal.LeaseTerms;

/**
 * The acquisition of a shared hold (a read share, a semaphore permit) in watchdog mode,
 * by the script of a {@link SharedAttempt}. Every thread takes it under a token of its
 * own, so many threads of one JVM may hold shares of one name; there is no local
 * hand-over.
 */
final class SharedAcquisition implements Acquisition {

	private final RedisLockCommands commands;

	private final SharedAttempt attempt;

	private final LeaseTerms terms;

	/** The token the caller takes the hold and waits under. */
	private final String token = LockTokens.next();

	SharedAcquisition(RedisLockCommands commands, SharedAttempt attempt, LeaseTerms terms) {
		this.commands = commands;
		this.attempt = attempt;
		this.terms = terms;
	}

	@Override
	public LockId id() {
		return this.attempt.id();
	}

	@Override
	public CompletableFuture<RedisLockCommands.Grant> send(Queueing queueing) {
		return this.commands.acquireShare(this.attempt, this.token, this.terms, queueing);
	}

	@Override
	public String describe() {
		return this.attempt.kind().label() + " hold of '" + this.attempt.id().name + "'";
	}

	/**
	 * Return the hold of an attempt that answered its fencing token.
	 */
	@Override
	public RedisHold hold(long reply, long sentNanos) {
		return new RedisHold(this.attempt.id(), this.attempt.kind(), this.token, reply, sentNanos, this.terms,
				LeaseOptions.WATCHDOG);
	}

	/**
	 * Return when the first holder's entry expires, or a whole re-check when unknown.
	 */
	@Override
	public long recheckMillis(long reply) {
		return (reply < 0) ? -reply : RedisAcquirer.RECHECK_MILLIS;
	}

	@Override
	public void giveBack() {
		this.commands.giveBack(this.attempt.id(), this.attempt.kind(), this.token, this.terms);
	}

}
