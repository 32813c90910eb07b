package dev.distlock.benchmarks;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@link CycleCost} reads Redis' CPU time and counts it per cycle.
 */
class CycleCostTests {

	@Test
	void redisCpuIsTheServersUserAndSystemTime() {
		String info = "# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:0.500001\r\nused_cpu_sys_children:9.000000\r\n"
				+ "used_cpu_user_children:9.000000\r\nused_cpu_sys_main_thread:1.200000\r\n";
		assertThat(CycleCost.Clock.redisCpuNanos(info)).isEqualTo(1_750_001_000L);
	}

	@Test
	void costIsCountedPerCycleOverEveryRoundAndComparedWithTheBaselines() {
		CycleCost cost = CycleCost.NONE.plus(new CycleCost.Clock(0, 0), new CycleCost.Clock(2_000_000, 6_000_000), 100)
			.plus(new CycleCost.Clock(5_000_000, 5_000_000), new CycleCost.Clock(6_000_000, 8_000_000), 100);
		CycleCost baseline = CycleCost.NONE.plus(new CycleCost.Clock(0, 0), new CycleCost.Clock(1_000_000, 4_500_000),
				100);
		assertThat(cost.redisMicros()).isEqualTo(15.0);
		assertThat(cost.clientMicros()).isEqualTo(45.0);
		assertThat(cost.describe(baseline))
			.isEqualTo("Redis CPU 15.0 µs/cycle (1.50x the baseline's), client CPU 45.0 µs/cycle (1.00x)");
	}

}
