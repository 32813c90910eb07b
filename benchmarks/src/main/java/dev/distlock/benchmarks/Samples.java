package dev.distlock.benchmarks;

import java.util.Arrays;

/**
 * Latencies in nanoseconds, appended by one thread, merged and sorted for percentiles.
 * Beyond {@value #CAPACITY} latencies it keeps a uniform random sample (reservoir
 * sampling), so that percentiles stay unbiased and memory stays bounded.
 *
 * @since 0.1.0
 */
public final class Samples {

	static final int CAPACITY = 1 << 20;

	private long[] values = new long[1024];

	private int size;

	private long seen;

	private boolean sorted = true;

	/**
	 * Record one latency.
	 * @param nanos the latency in nanoseconds
	 */
	public void add(long nanos) {
		this.seen++;
		if (this.size == CAPACITY) {
			long slot = java.util.concurrent.ThreadLocalRandom.current().nextLong(this.seen);
			if (slot < CAPACITY) {
				this.values[(int) slot] = nanos;
				this.sorted = false;
			}
			return;
		}
		if (this.size == this.values.length) {
			this.values = Arrays.copyOf(this.values, this.size * 2);
		}
		this.values[this.size++] = nanos;
		this.sorted = false;
	}

	/**
	 * Append every latency of another recorder.
	 * @param other the latencies to add
	 */
	public void addAll(Samples other) {
		for (int i = 0; i < other.size; i++) {
			add(other.values[i]);
		}
	}

	/**
	 * Return how many latencies were recorded.
	 * @return the count
	 */
	public int size() {
		return this.size;
	}

	/**
	 * Return a percentile.
	 * @param percent 0 to 100
	 * @return the latency in nanoseconds, 0 when nothing was recorded
	 */
	public long percentile(double percent) {
		if (this.size == 0) {
			return 0;
		}
		if (!this.sorted) {
			Arrays.sort(this.values, 0, this.size);
			this.sorted = true;
		}
		int index = (int) Math.ceil(percent / 100.0 * this.size) - 1;
		return this.values[Math.max(0, Math.min(this.size - 1, index))];
	}

	/**
	 * Return the latencies in microseconds, comma-separated (for a second JVM's report).
	 * @return the text
	 */
	public String toMicrosText() {
		StringBuilder text = new StringBuilder();
		for (int i = 0; i < this.size; i++) {
			if (i > 0) {
				text.append(',');
			}
			text.append(this.values[i] / 1000);
		}
		return text.toString();
	}

	/**
	 * Parse {@link #toMicrosText()}.
	 * @param text the text
	 * @return the latencies
	 */
	public static Samples fromMicrosText(String text) {
		Samples samples = new Samples();
		if (!text.isEmpty()) {
			for (String value : text.split(",")) {
				samples.add(Long.parseLong(value) * 1000);
			}
		}
		return samples;
	}

}
