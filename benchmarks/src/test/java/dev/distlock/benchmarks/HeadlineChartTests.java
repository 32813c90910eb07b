package dev.distlock.benchmarks;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The scales of {@link HeadlineChart}: four round steps that reach the largest value.
 */
class HeadlineChartTests {

	@Test
	void scaleOfRatiosGoesUpInRoundSteps() {
		assertThat(HeadlineChart.roundScale(1.68)).isCloseTo(2.0, within(1e-9));
		assertThat(HeadlineChart.roundScale(1.2)).isCloseTo(1.2, within(1e-9));
		assertThat(HeadlineChart.roundScale(0.97)).isCloseTo(1.0, within(1e-9));
	}

	@Test
	void scaleOfWaitsGoesUpInRoundSteps() {
		assertThat(HeadlineChart.roundScale(44.7)).isCloseTo(60, within(1e-9));
		assertThat(HeadlineChart.roundScale(6.2)).isCloseTo(8, within(1e-9));
		assertThat(HeadlineChart.roundScale(0.9)).isCloseTo(1, within(1e-9));
	}

}
