package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import dev.distlock.DistributedLockException;

/**
 * What the operations support asks of Redis through a registry, about locks that any
 * process may hold: how long a lock stays taken, a force-release, and whether Redis (or
 * each node of a quorum) answers.
 */
final class LockOperations {

	private final RedisLockCommands commands;

	LockOperations(RedisLockCommands commands) {
		this.commands = commands;
	}

	/**
	 * Return how long a lock stays taken unless renewed.
	 * @return the time left, or empty when the lock is not taken
	 */
	Optional<Duration> remainingLease(LockId id) {
		long millis = this.commands.await(this.commands.lockState(id), "read the lease of lock '" + id.name + "'");
		return (millis >= 0) ? Optional.of(Duration.ofMillis(millis)) : Optional.empty();
	}

	/**
	 * Release a lock whoever holds it, waiting for Redis' answer whatever interrupts the
	 * caller.
	 * @return the fencing token of the hold released, or empty when none was held
	 */
	OptionalLong forceRelease(LockId id) {
		long lastToken = this.commands.awaitUninterruptibly(this.commands.forceRelease(id),
				"force-release lock '" + id.name + "'");
		return (lastToken >= 0) ? OptionalLong.of(lastToken) : OptionalLong.empty();
	}

	/**
	 * Send {@code PING} and wait for the answer.
	 * @throws DistributedLockException if Redis did not answer
	 */
	void ping() {
		this.commands.await(this.commands.ping(), "answer PING");
	}

	/**
	 * Send {@code PING} to every node and tell how each answered.
	 * @return {@code UP}, or {@code DOWN: } and the failure, per node
	 */
	List<String> pingNodes() {
		return this.commands.pingNodes().stream().map((reply) -> {
			try {
				this.commands.await(reply, "answer PING");
				return "UP";
			}
			catch (DistributedLockException ex) {
				return "DOWN: " + ex.getMessage();
			}
		}).toList();
	}

}
