package dev.distlock.benchmarks;

/**
 * One way of taking a Redis lock that the benchmarks measure.
 *
 * <p>
 * Every contender runs the same work ({@link #locked}) so that their figures compare:
 * wait for the lock without a bound, run the work while holding it, release it.
 *
 * @since 0.1.0
 */
public interface Contender extends AutoCloseable {

	/**
	 * Return the name printed in the report.
	 * @return the contender's name
	 */
	String name();

	/**
	 * Take the named lock, waiting as long as it takes, run the work and release it.
	 * @param name the lock's name, turned into a Redis key by the contender
	 * @param work what to run while holding the lock
	 */
	void locked(String name, Runnable work);

	/**
	 * Return whether {@link #locked} may be nested for the same name on one thread.
	 * @return whether the lock is reentrant
	 */
	default boolean reentrant() {
		return false;
	}

	/**
	 * Return whether {@link #hold} is supported.
	 * @return whether held locks are renewed by a watchdog
	 */
	default boolean renewsHeldLocks() {
		return false;
	}

	/**
	 * Take the named lock in watchdog mode and keep it until the returned handle is
	 * closed.
	 * @param name the lock's name
	 * @return the handle that releases the lock
	 */
	default Held hold(String name) {
		throw new UnsupportedOperationException(name() + " does not renew held locks");
	}

	/**
	 * Return the CPU time of the Redis servers the contender started for itself, beside
	 * the benchmark's Redis, such as the other nodes of a quorum.
	 * @return their user and system time since they started, in nanoseconds
	 */
	default long ownRedisCpuNanos() {
		return 0;
	}

	/**
	 * Return the Redis key that holds the named lock while it is held.
	 * @param name the lock's name
	 * @return its Redis key
	 */
	String redisKey(String name);

	@Override
	void close();

	/**
	 * A lock held until closed.
	 */
	@FunctionalInterface
	interface Held extends AutoCloseable {

		@Override
		void close();

	}

	/**
	 * Run work holding a {@link java.util.concurrent.locks.Lock}, as every contender
	 * whose lock is one does.
	 * @param lock the lock
	 * @param work the work
	 */
	static void runHolding(java.util.concurrent.locks.Lock lock, Runnable work) {
		lock.lock();
		try {
			work.run();
		}
		finally {
			lock.unlock();
		}
	}

}
