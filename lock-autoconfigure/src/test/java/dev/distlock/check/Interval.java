package dev.distlock.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A stretch of time in microseconds, from {@code start} to {@code end}.
 *
 * @param start when it begins
 * @param end when it ends, not before it begins
 */
record Interval(long start, long end) {

	/**
	 * Return the union of the given intervals as disjoint intervals, in order.
	 * @param intervals the intervals
	 * @return the union
	 */
	static List<Interval> union(Stream<Interval> intervals) {
		return coveredAtLeast(intervals, 1);
	}

	/**
	 * Return when at least the given number of the given intervals overlap, as disjoint
	 * intervals in order; for one, their union.
	 * @param intervals the intervals
	 * @param count how many must overlap
	 * @return the times covered that many times or more
	 */
	static List<Interval> coveredAtLeast(Stream<Interval> intervals, int count) {
		TreeMap<Long, Integer> changes = new TreeMap<>();
		intervals.filter((interval) -> interval.end > interval.start).forEach((interval) -> {
			changes.merge(interval.start, 1, Integer::sum);
			changes.merge(interval.end, -1, Integer::sum);
		});
		List<Interval> covered = new ArrayList<>();
		int depth = 0;
		long from = 0;
		for (Map.Entry<Long, Integer> change : changes.entrySet()) {
			int next = depth + change.getValue();
			if (depth < count && next >= count) {
				from = change.getKey();
			}
			else if (depth >= count && next < count) {
				covered.add(new Interval(from, change.getKey()));
			}
			depth = next;
		}
		return covered;
	}

	/**
	 * Return what is left of this interval once the given ones are taken out.
	 * @param taken disjoint intervals, in order, as {@link #union} returns them
	 * @return the parts left, in order
	 */
	List<Interval> minus(List<Interval> taken) {
		List<Interval> left = new ArrayList<>();
		long from = this.start;
		for (Interval out : taken) {
			if (out.end <= from || out.start >= this.end) {
				continue;
			}
			if (out.start > from) {
				left.add(new Interval(from, out.start));
			}
			from = Math.max(from, out.end);
		}
		if (from < this.end) {
			left.add(new Interval(from, this.end));
		}
		return left;
	}

	long length() {
		return this.end - this.start;
	}

}
