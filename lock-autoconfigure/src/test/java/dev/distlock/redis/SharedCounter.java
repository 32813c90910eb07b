package dev.distlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;
import dev.distlock.LockRegistry;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A counter in Redis incremented the racy way, {@code GET} then {@code SET}, with a short
 * stall between the two to widen the race. Under a lock each increment also appends the
 * hold's fencing token to a list, so the list records the order in which holders wrote.
 * Readers under a read lock read it twice, with the same stall between, and count the
 * reads that saw it change. Used by {@link CrossProcessLockTests} and
 * {@link CrossProcessReadWriteLockTests} in the test JVM and by {@link LockWorkerMain} in
 * rival JVMs.
 */
final class SharedCounter {

	/** Name of the lock that guards the counter. */
	static final String LOCK_NAME = "counter";

	/** Key of the counter. */
	static final String COUNTER_KEY = "counter";

	/** Key of the list of fencing tokens, one per increment, in write order. */
	static final String TOKENS_KEY = "counter:tokens";

	private static final long MAX_STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long TIMEOUT_SECONDS = 60;

	private final RedisCommands<String, String> redis;

	SharedCounter(RedisCommands<String, String> redis) {
		this.redis = redis;
	}

	/**
	 * Run the given number of threads, each incrementing the counter the given number of
	 * times while holding the lock {@value #LOCK_NAME}, and wait for them to finish.
	 * @param locks the registry to obtain the lock from
	 * @param threads how many threads
	 * @param iterations increments per thread
	 * @throws Exception if a thread failed or did not finish in time
	 */
	void incrementUnderLock(LockRegistry locks, int threads, int iterations) throws Exception {
		runConcurrently(threads, iterations, () -> incrementHolding(locks.obtain(LOCK_NAME)));
	}

	/**
	 * Run the given number of threads, each taking the given number of turns on the
	 * read/write lock {@value #LOCK_NAME}, whose write side is the lock of
	 * {@link #incrementUnderLock}: every other turn increments the counter under the
	 * write lock as {@link #incrementUnderLock} does, the others read it twice under the
	 * read lock, with a stall between; then wait for them to finish.
	 * @param locks the registry to obtain the lock from
	 * @param threads how many threads
	 * @param iterations turns per thread
	 * @return how many reads saw the counter change while they held the read lock
	 * @throws Exception if a thread failed or did not finish in time
	 */
	long incrementAndReadUnderReadWriteLock(LockRegistry locks, int threads, int iterations) throws Exception {
		AtomicLong turns = new AtomicLong();
		AtomicLong changed = new AtomicLong();
		runConcurrently(threads, iterations, () -> {
			FencedReadWriteLock lock = locks.readWriteLock(LOCK_NAME);
			if (turns.getAndIncrement() % 2 == 0) {
				incrementHolding(lock.writeLock());
				return;
			}
			lock.readLock().lock();
			try {
				long before = value();
				stall();
				if (value() != before) {
					changed.incrementAndGet();
				}
			}
			finally {
				lock.readLock().unlock();
			}
		});
		return changed.get();
	}

	/**
	 * Run the same increments as {@link #incrementUnderLock}, without the lock.
	 * @param threads how many threads
	 * @param iterations increments per thread
	 * @throws Exception if a thread failed or did not finish in time
	 */
	void incrementWithoutLock(int threads, int iterations) throws Exception {
		runConcurrently(threads, iterations, this::increment);
	}

	/**
	 * Return the counter's value.
	 * @return the value, 0 when never written
	 */
	long value() {
		String value = this.redis.get(COUNTER_KEY);
		return (value != null) ? Long.parseLong(value) : 0;
	}

	/**
	 * Return the fencing tokens of the increments made under the lock, in write order.
	 * @return the tokens
	 */
	List<Long> fencingTokens() {
		return this.redis.lrange(TOKENS_KEY, 0, -1).stream().map(Long::valueOf).toList();
	}

	private void incrementHolding(FencedLock lock) {
		lock.lock();
		try {
			increment();
			this.redis.rpush(TOKENS_KEY, Long.toString(lock.fencingToken()));
		}
		finally {
			lock.unlock();
		}
	}

	private void increment() {
		long value = value();
		stall();
		this.redis.set(COUNTER_KEY, Long.toString(value + 1));
	}

	private static void stall() {
		LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(MAX_STALL_NANOS));
	}

	/**
	 * Run the given number of threads, each running the task the given number of times,
	 * and wait for them to finish.
	 * @param threads how many threads
	 * @param iterations runs per thread
	 * @param task what each thread runs
	 * @throws Exception if a thread failed or did not finish in time
	 */
	static void runConcurrently(int threads, int iterations, Runnable task) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				workers.add(pool.submit(() -> {
					for (int n = 0; n < iterations; n++) {
						task.run();
					}
				}));
			}
			for (Future<?> worker : workers) {
				worker.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

}
