package dev.distlock.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Intervals in which holders of several JVMs held a permit or a share, on the wall clock
 * that the JVMs of one machine share, in microseconds since the epoch. Each is recorded
 * after its hold was taken and before it was released, so it lies inside the hold: holds
 * that never overlapped give intervals that never overlap. A rival JVM prints one
 * {@link #line} per hold; the test parses them and counts {@link #mostAtOnce}.
 */
final class HoldIntervals {

	/** How a printed interval starts. */
	static final String PREFIX = "HELD ";

	private HoldIntervals() {
	}

	/**
	 * Return the wall clock now, in microseconds since the epoch.
	 * @return the time
	 */
	static long nowMicros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
	}

	/**
	 * Return the line that reports one hold.
	 * @param interval the hold's interval
	 * @return {@code HELD <start> <end> <fencing token>}
	 */
	static String line(Interval interval) {
		return PREFIX + interval.startMicros() + " " + interval.endMicros() + " " + interval.fencingToken();
	}

	/**
	 * Return the interval a line reports.
	 * @param line a line made by {@link #line}
	 * @return the interval
	 */
	static Interval parse(String line) {
		String[] parts = line.substring(PREFIX.length()).split(" ");
		return new Interval(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
	}

	/**
	 * Return the most intervals that overlap at any instant. An interval that ends when
	 * another starts does not overlap it: both lie inside their holds, and one hold was
	 * released before the other was taken.
	 * @param intervals the intervals
	 * @return the largest number of intervals holding at once
	 */
	static int mostAtOnce(List<Interval> intervals) {
		List<long[]> changes = new ArrayList<>();
		for (Interval interval : intervals) {
			changes.add(new long[] { interval.startMicros(), 1 });
			changes.add(new long[] { interval.endMicros(), -1 });
		}
		changes.sort(Comparator.<long[]>comparingLong((change) -> change[0]).thenComparingLong((change) -> change[1]));
		int holding = 0;
		int most = 0;
		for (long[] change : changes) {
			holding += (int) change[1];
			most = Math.max(most, holding);
		}
		return most;
	}

	/**
	 * One hold, as its holder recorded it.
	 *
	 * @param startMicros when it was taken, at the latest
	 * @param endMicros when it was released, at the earliest
	 * @param fencingToken its fencing token
	 */
	record Interval(long startMicros, long endMicros, long fencingToken) {

	}

}
