package dev.distlock.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counting overlapping {@link HoldIntervals}, which the cross-process tests rely on to
 * find more holders at once than allowed.
 */
class HoldIntervalsTests {

	@Test
	void countsTheMostIntervalsThatOverlapAtOneInstant() {
		assertThat(
				HoldIntervals.mostAtOnce(List.of(interval(0, 10), interval(5, 15), interval(8, 9), interval(20, 30))))
			.isEqualTo(3);
	}

	@Test
	void intervalsThatOnlyTouchDoNotOverlap() {
		assertThat(HoldIntervals.mostAtOnce(List.of(interval(10, 20), interval(0, 10), interval(20, 30)))).isOne();
	}

	@Test
	void aPrintedIntervalIsParsedBack() {
		HoldIntervals.Interval interval = new HoldIntervals.Interval(1_795_000_000_000_000L, 1_795_000_000_000_500L,
				42);
		assertThat(HoldIntervals.parse(HoldIntervals.line(interval))).isEqualTo(interval);
	}

	private static HoldIntervals.Interval interval(long start, long end) {
		return new HoldIntervals.Interval(start, end, start);
	}

}
