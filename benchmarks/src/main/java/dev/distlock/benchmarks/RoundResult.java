package dev.distlock.benchmarks;

/**
 * What one contender did in one round.
 *
 * @param operations lock/unlock cycles completed
 * @param elapsedNanos wall time from the start until the last thread finished
 * @param latencies per cycle: the whole cycle when uncontended, the wait for the lock
 * when contended
 * @param perThread cycles completed by each thread
 * @param excluded whether a non-atomic counter incremented under the lock lost no update
 * @since 0.1.0
 */
public record RoundResult(long operations, long elapsedNanos, Samples latencies, long[] perThread, boolean excluded) {

	/**
	 * Return the throughput.
	 * @return cycles per second
	 */
	public double opsPerSecond() {
		return this.operations * 1e9 / Math.max(1, this.elapsedNanos);
	}

	/**
	 * Return the least-served thread's share relative to the mean share.
	 * @return 1.0 when perfectly fair, 0 when a thread starved
	 */
	public double minShareOfMean() {
		double mean = (double) this.operations / this.perThread.length;
		long min = Long.MAX_VALUE;
		for (long count : this.perThread) {
			min = Math.min(min, count);
		}
		return (mean > 0) ? min / mean : 0;
	}

}
