package dev.distlock.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * Runs one contender for one round: every thread loops {@link Contender#locked} until the
 * round time or its share of the operation cap is used up.
 *
 * @since 0.1.0
 */
public final class RoundRunner {

	private RoundRunner() {
	}

	/**
	 * Run one round.
	 * @param contender the lock under test
	 * @param threads how many threads take locks
	 * @param nameOfThread the lock name each thread uses (the same for a contended round)
	 * @param contended whether to record the wait for the lock rather than the whole
	 * cycle
	 * @param timeNanos how long the round lasts
	 * @param opsCap operations in all at most (0: no cap)
	 * @return what the round did
	 */
	public static RoundResult run(Contender contender, int threads, IntFunction<String> nameOfThread, boolean contended,
			long timeNanos, int opsCap) {
		return run(contender, threads, nameOfThread, contended, timeNanos, opsCap, () -> {
		});
	}

	/**
	 * Run one round whose work under the lock also runs the given task, such as counting
	 * the acquisitions of several JVMs in one {@link SharedCounter}.
	 * @param contender the lock under test
	 * @param threads how many threads take locks
	 * @param nameOfThread the lock name each thread uses (the same for a contended round)
	 * @param contended whether to record the wait for the lock rather than the whole
	 * cycle
	 * @param timeNanos how long the round lasts
	 * @param opsCap operations in all at most (0: no cap)
	 * @param alsoUnderLock what else every holder runs while it holds the lock
	 * @return what the round did
	 */
	public static RoundResult run(Contender contender, int threads, IntFunction<String> nameOfThread, boolean contended,
			long timeNanos, int opsCap, Runnable alsoUnderLock) {
		long capPerThread = (opsCap > 0) ? Math.max(1, (opsCap + threads - 1) / threads) : Long.MAX_VALUE;
		Counter counter = new Counter();
		long[] perThread = new long[threads];
		Samples[] samples = new Samples[threads];
		AtomicReference<Throwable> failure = new AtomicReference<>();
		CountDownLatch start = new CountDownLatch(1);
		long[] startNanos = new long[1];
		Thread[] workers = new Thread[threads];
		for (int t = 0; t < threads; t++) {
			int index = t;
			samples[t] = new Samples();
			workers[t] = new Thread(() -> {
				try {
					start.await();
					String name = nameOfThread.apply(index);
					long deadline = startNanos[0] + timeNanos;
					long[] acquired = new long[1];
					Runnable work = () -> {
						acquired[0] = System.nanoTime();
						counter.value++;
						alsoUnderLock.run();
					};
					long done = 0;
					while (done < capPerThread && failure.get() == null) {
						long before = System.nanoTime();
						if (before - deadline >= 0) {
							break;
						}
						contender.locked(name, work);
						long after = System.nanoTime();
						samples[index].add(contended ? acquired[0] - before : after - before);
						done++;
					}
					perThread[index] = done;
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			}, "bench-" + contender.name() + "-" + t);
			workers[t].start();
		}
		startNanos[0] = System.nanoTime();
		start.countDown();
		for (Thread worker : workers) {
			join(worker);
		}
		long elapsed = System.nanoTime() - startNanos[0];
		if (failure.get() != null) {
			throw new IllegalStateException(contender.name() + " failed: " + failure.get(), failure.get());
		}
		Samples merged = new Samples();
		long operations = 0;
		for (int t = 0; t < threads; t++) {
			merged.addAll(samples[t]);
			operations += perThread[t];
		}
		return new RoundResult(operations, elapsed, merged, perThread, counter.value == operations);
	}

	private static void join(Thread worker) {
		try {
			worker.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for " + worker.getName(), ex);
		}
	}

	/**
	 * A deliberately non-atomic counter: lost updates show a broken exclusion.
	 */
	private static final class Counter {

		int value;

	}

}
