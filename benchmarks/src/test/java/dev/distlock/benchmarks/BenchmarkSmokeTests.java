package dev.distlock.benchmarks;

import java.util.List;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every contender in every scenario for a few hundred operations: proves that the
 * benchmarks work and that each lock excluded. Never asserts speed.
 */
class BenchmarkSmokeTests {

	@Test
	void everyContenderRunsEveryScenarioAndExclusionHolds() {
		Benchmarks.Result result = Benchmarks.run(BenchmarkConfig.SMOKE);
		System.out.println(result.format());
		List<Row> rows = result.rows();
		assertThat(rows).allSatisfy((row) -> {
			assertThat(row.operations()).as(row.contender() + " in " + row.scenario()).isPositive();
			assertThat(row.excluded()).as(row.contender() + " in " + row.scenario()).isTrue();
		});
		assertThat(rows).extracting(Row::scenario)
			.contains(Goals.UNCONTENDED, Goals.DISTINCT, Goals.ONE_KEY, ReentryScenario.TITLE);
		assertThat(result.crossProcess()).singleElement().satisfies((table) -> {
			assertThat(table.title()).isEqualTo(CrossProcessScenario.TWO_JVMS_FOUR_THREADS.title());
			assertThat(table.rows()).extracting(CrossProcessRow::contender)
				.containsExactly("naive 1 ms spinner", "distlock obtain().lock()");
			assertThat(table.rows()).allSatisfy((row) -> {
				assertThat(row.acquisitions()).as(row.contender()).isPositive();
				assertThat(row.excluded()).as(row.contender()).isTrue();
				assertThat(row.commandsPerAcquisition()).as(row.contender()).isPositive();
				assertThat(row.requestsPerAcquisition()).as(row.contender()).isPositive();
			});
			assertThat(table.rows().get(1).verdicts()).contains("of the spinner, goal >= 1.5x: ");
		});
		assertThat(rows).filteredOn((row) -> row.scenario().equals(Goals.ONE_KEY))
			.extracting(Row::contender)
			.containsExactly("naive 1 ms spinner", "distlock obtain().lock()", "distlock acquire()/release()",
					"distlock @DistributedLock", "distlock obtain().lock() on Spring Data Redis (Lettuce)",
					"distlock obtain().lock() on Spring Data Redis (Jedis)", "Redisson lock(30s)",
					"Redisson lock() watchdog", "Spring Integration spin", "Spring Integration pub/sub",
					"Spring Integration spin on Jedis");
		assertThat(rows).filteredOn((row) -> row.scenario().equals(Goals.UNCONTENDED))
			.extracting(Row::contender)
			.startsWith("raw floor (SET NX PX + EVALSHA)", "raw floor on Jedis (SET NX PX + EVALSHA)");
		assertThat(rows)
			.filteredOn((row) -> row.scenario().equals(Goals.DISTINCT)
					&& row.contender().equals("distlock obtain().lock() on Spring Data Redis (Jedis)"))
			.singleElement()
			.extracting(Row::note, InstanceOfAssertFactories.STRING)
			.contains("of Spring Integration spin on Jedis, goal >= 1.00x: ", "of raw floor on Jedis");
		assertThat(rows).filteredOn((row) -> row.scenario().contains("held locks"))
			.extracting(Row::contender)
			.containsExactly("distlock acquire()/release()", "distlock obtain().lock() on Spring Data Redis (Lettuce)",
					"distlock obtain().lock() on Spring Data Redis (Jedis)", "Redisson lock() watchdog",
					"Spring Integration spin");
	}

}
