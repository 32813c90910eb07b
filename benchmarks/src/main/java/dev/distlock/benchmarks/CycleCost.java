package dev.distlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.Locale;

import com.sun.management.OperatingSystemMXBean;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The CPU one contender's cycles cost over its measured rounds: Redis' ({@code INFO cpu},
 * the server process's user and system time, so its network work as well as its commands
 * and scripts, summed over the servers a contender started for itself too) and this JVM's
 * (the process CPU time, so every thread of the client: its I/O, its renewals and its
 * garbage collection). Both are counted per cycle, and compared with the baseline's.
 *
 * @param redisNanos Redis' CPU time over the rounds
 * @param clientNanos this JVM's CPU time over the rounds
 * @param cycles the cycles of the rounds
 * @since 0.1.0
 */
record CycleCost(long redisNanos, long clientNanos, long cycles) {

	private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	/** No rounds yet. */
	static final CycleCost NONE = new CycleCost(0, 0, 0);

	/**
	 * Return the cost so far with one more round.
	 * @param before the CPU times when the round started
	 * @param after the CPU times when it ended
	 * @param roundCycles the round's cycles
	 * @return the sum
	 */
	CycleCost plus(Clock before, Clock after, long roundCycles) {
		return new CycleCost(this.redisNanos + after.redisNanos - before.redisNanos,
				this.clientNanos + after.clientNanos - before.clientNanos, this.cycles + roundCycles);
	}

	/**
	 * Return Redis' CPU time per cycle.
	 * @return microseconds
	 */
	double redisMicros() {
		return this.redisNanos / 1e3 / Math.max(1, this.cycles);
	}

	/**
	 * Return this JVM's CPU time per cycle.
	 * @return microseconds
	 */
	double clientMicros() {
		return this.clientNanos / 1e3 / Math.max(1, this.cycles);
	}

	/**
	 * Describe the cost for a row's note, compared with the baseline's.
	 * @param baseline the baseline's cost in the same scenario
	 * @return such as {@code Redis CPU 21.3 µs/cycle (1.37x the baseline's), client CPU
	 * 40.2 µs/cycle (1.12x)}
	 */
	String describe(CycleCost baseline) {
		return String.format(Locale.ROOT,
				"Redis CPU %.1f µs/cycle (%.2fx the baseline's), client CPU %.1f µs/cycle (%.2fx)", redisMicros(),
				redisMicros() / baseline.redisMicros(), clientMicros(), clientMicros() / baseline.clientMicros());
	}

	/**
	 * The CPU times of Redis and of this JVM at one moment.
	 *
	 * @param redisNanos Redis' user and system time since it started
	 * @param clientNanos this JVM's CPU time since it started
	 */
	record Clock(long redisNanos, long clientNanos) {

		/**
		 * Read both clocks now.
		 * @param redis a connection to the Redis the contenders use, which none of them
		 * uses
		 * @param contender the contender measured, whose own Redis servers count as
		 * Redis' time too
		 * @return the times
		 */
		static Clock read(RedisCommands<String, String> redis, Contender contender) {
			return new Clock(redisCpuNanos(redis.info("cpu")) + contender.ownRedisCpuNanos(), OS.getProcessCpuTime());
		}

		/**
		 * Return the sum of {@code used_cpu_sys} and {@code used_cpu_user} (seconds, to
		 * the microsecond) of an {@code INFO cpu} reply.
		 */
		static long redisCpuNanos(String info) {
			long nanos = 0;
			for (String line : info.split("\r?\n")) {
				if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
					nanos += Math.round(Double.parseDouble(line.substring(line.indexOf(':') + 1).trim()) * 1e9);
				}
			}
			return nanos;
		}

	}

}
