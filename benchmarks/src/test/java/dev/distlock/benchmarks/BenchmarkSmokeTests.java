package dev.distlock.benchmarks;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javax.xml.parsers.DocumentBuilderFactory;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every contender in every scenario for a few hundred operations: proves that the
 * benchmarks work and that each lock excluded. Never asserts speed.
 */
class BenchmarkSmokeTests {

	@Test
	void everyContenderRunsEveryScenarioAndExclusionHolds() throws Exception {
		Benchmarks.Result result = Benchmarks.run(BenchmarkConfig.SMOKE);
		System.out.println(result.format());
		assertChartDrawsDistlockInEveryScenarioItRan(result);
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
			assertThat(table.rows().get(1).verdicts()).contains("of the spinner, goal >= 1.2x: ");
		});
		assertThat(rows).filteredOn((row) -> row.scenario().equals(Goals.ONE_KEY))
			.extracting(Row::contender)
			.containsExactly("naive 1 ms spinner", "distlock obtain().lock()", "distlock acquire()/release()",
					"distlock @DistributedLock", "distlock obtain().lock() on Spring Data Redis (Jedis)",
					"Redisson lock(30s)", "Redisson lock() watchdog", "Spring Integration spin",
					"Spring Integration pub/sub", "Spring Integration spin on Jedis");
		assertThat(rows).filteredOn((row) -> row.scenario().equals(Goals.UNCONTENDED))
			.extracting(Row::contender)
			.startsWith("raw floor (SET NX PX + EVALSHA)", "raw floor on Jedis (SET NX PX + EVALSHA)");
		assertThat(rows).filteredOn((row) -> row.scenario().equals(Goals.UNCONTENDED))
			.allSatisfy((row) -> assertThat(row.note()).as(row.contender())
				.containsPattern("Redis CPU \\d+\\.\\d µs/cycle \\(\\d+\\.\\d\\dx the baseline's\\), client CPU"));
		assertThat(rows)
			.filteredOn((row) -> row.scenario().equals(Goals.DISTINCT)
					&& row.contender().equals("distlock obtain().lock() on Spring Data Redis (Jedis)"))
			.singleElement()
			.extracting(Row::note, InstanceOfAssertFactories.STRING)
			.contains("of Spring Integration spin on Jedis, goal >= 1.00x: ", "of raw floor on Jedis");
		assertThat(rows).filteredOn((row) -> row.contender().equals("distlock obtain().lock() on a 3-node Redlock"))
			.allSatisfy((row) -> assertThat(row.note()).as(row.scenario())
				.contains("of raw floor (SET NX PX + EVALSHA), goal >= "))
			.extracting(Row::scenario)
			.containsExactly(Goals.UNCONTENDED, Goals.DISTINCT);
		assertThat(rows).filteredOn((row) -> row.scenario().contains("held locks"))
			.extracting(Row::contender)
			.containsExactly("distlock acquire()/release()", "distlock obtain().lock() on Spring Data Redis (Jedis)",
					"Redisson lock() watchdog", "Spring Integration spin");
	}

	/**
	 * Assert that the headline chart of the run is an SVG document with a bar labelled
	 * with distlock's ratio in each scenario of the chart that the run measured; it is
	 * kept in {@code target/} to look at.
	 */
	private static void assertChartDrawsDistlockInEveryScenarioItRan(Benchmarks.Result result) throws Exception {
		String svg = HeadlineChart.svg(result, "smoke run");
		Files.writeString(Path.of("target", "benchmarks-headline-smoke.svg"), svg);
		Document chart = DocumentBuilderFactory.newInstance()
			.newDocumentBuilder()
			.parse(new InputSource(new StringReader(svg)));
		assertThat(chart.getDocumentElement().getTagName()).isEqualTo("svg");
		List<String> labels = new ArrayList<>();
		NodeList texts = chart.getElementsByTagName("text");
		for (int i = 0; i < texts.getLength(); i++) {
			labels.add(texts.item(i).getTextContent());
		}
		assertThat(labels).contains("distlock", "Redisson", Goals.UNCONTENDED, Goals.DISTINCT, Goals.ONE_KEY,
				CrossProcessScenario.TWO_JVMS_FOUR_THREADS.title());
		double distlockRatio = result.rows()
			.stream()
			.filter((row) -> row.scenario().equals(Goals.UNCONTENDED)
					&& row.contender().equals("distlock obtain().lock()"))
			.findFirst()
			.orElseThrow()
			.ratio();
		assertThat(labels).contains(String.format(Locale.ROOT, "%.2fx", distlockRatio));
	}

}
