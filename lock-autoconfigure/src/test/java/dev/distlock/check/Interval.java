package dev.distlock.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
		List<Interval> union = new ArrayList<>();
		intervals.filter((interval) -> interval.end > interval.start)
			.sorted(Comparator.comparingLong(Interval::start))
			.forEach((next) -> {
				Interval last = union.isEmpty() ? null : union.get(union.size() - 1);
				if (last != null && next.start <= last.end) {
					union.set(union.size() - 1, new Interval(last.start, Math.max(last.end, next.end)));
				}
				else {
					union.add(next);
				}
			});
		return union;
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
