package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;

/**
 * Threads that read under the read lock of a read/write lock, one hold after the other,
 * each hold lasting {@value #MIN_HOLD_MILLIS} to {@value #MAX_HOLD_MILLIS} ms, so that
 * while they run the lock is read almost without a gap: the stream of readers that a
 * waiting writer must not be starved by. Used by {@link LockWorkerMain} in rival JVMs.
 */
final class ReaderStream {

	private static final long MIN_HOLD_MILLIS = 20;

	private static final long MAX_HOLD_MILLIS = 60;

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private final ExecutorService pool;

	private final List<Future<?>> readers = new ArrayList<>();

	private final AtomicBoolean reading = new AtomicBoolean(true);

	private final AtomicLong reads = new AtomicLong();

	private final CountDownLatch firstRead = new CountDownLatch(1);

	/**
	 * Start the given number of threads reading.
	 * @param lock the read/write lock whose read lock they take
	 * @param threads how many threads
	 */
	ReaderStream(FencedReadWriteLock lock, int threads) {
		this.pool = Executors.newFixedThreadPool(threads);
		for (int i = 0; i < threads; i++) {
			this.readers.add(this.pool.submit(() -> read(lock.readLock())));
		}
	}

	/**
	 * Wait until a thread holds the read lock for the first time.
	 * @throws InterruptedException if interrupted while waiting
	 */
	void awaitFirstRead() throws InterruptedException {
		if (!this.firstRead.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new IllegalStateException("No read lock taken within " + TIMEOUT);
		}
	}

	/**
	 * Let the threads read for the given time, then stop them and wait for them.
	 * @param duration how long they read
	 * @return how many read holds they had
	 * @throws Exception if a thread failed or did not stop in time
	 */
	long stopAfter(Duration duration) throws Exception {
		Thread.sleep(duration.toMillis());
		this.reading.set(false);
		try {
			for (Future<?> reader : this.readers) {
				reader.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			}
		}
		finally {
			this.pool.shutdownNow();
		}
		return this.reads.get();
	}

	private void read(FencedLock readLock) {
		while (this.reading.get()) {
			readLock.lock();
			try {
				this.firstRead.countDown();
				Thread.sleep(ThreadLocalRandom.current().nextLong(MIN_HOLD_MILLIS, MAX_HOLD_MILLIS + 1));
				this.reads.incrementAndGet();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			finally {
				readLock.unlock();
			}
		}
	}

}
