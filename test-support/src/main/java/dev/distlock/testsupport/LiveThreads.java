package dev.distlock.testsupport;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The live threads of this JVM, for tests that check that closing what they opened left
 * no thread behind. Reactor's shared schedulers and the JDK's common fork-join pool
 * (where {@code CompletableFuture} runs its asynchronous steps) are left out: they belong
 * to no registry and end on their own after a minute idle. So is the JDK's one timer
 * thread of {@code CompletableFuture}'s timeouts and delayed executors, which belongs to
 * the JVM ({@code CompletableFutureDelayScheduler} up to JDK 24, the common pool's
 * {@code delayScheduler} since).
 */
public final class LiveThreads {

	private LiveThreads() {
	}

	/**
	 * Return the threads alive now, each as {@code name#id}.
	 * @return the threads, sorted
	 */
	public static Set<String> now() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter(Thread::isAlive)
			.filter((thread) -> !thread.getName().startsWith("boundedElastic-")
					&& !thread.getName().startsWith("parallel-")
					&& !thread.getName().startsWith("ForkJoinPool.commonPool-")
					&& !thread.getName().equals("CompletableFutureDelayScheduler"))
			.map((thread) -> thread.getName() + "#" + thread.getId())
			.collect(Collectors.toCollection(TreeSet::new));
	}

	/**
	 * Wait until no thread beyond the baseline is alive, at most the given time.
	 * @param baseline threads from {@link #now()} before the work
	 * @param settle how long threads may take to end
	 * @return the threads still alive beyond the baseline, empty when none
	 * @throws InterruptedException if interrupted while waiting
	 */
	public static Set<String> beyond(Set<String> baseline, Duration settle) throws InterruptedException {
		long deadline = System.nanoTime() + settle.toNanos();
		Set<String> extra;
		do {
			extra = now();
			extra.removeAll(baseline);
			if (extra.isEmpty()) {
				return extra;
			}
			Thread.sleep(50);
		}
		while (System.nanoTime() < deadline);
		return extra;
	}

}
