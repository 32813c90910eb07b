package dev.distlock.check;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RivalJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures whether the randomized fault checker catches safety bugs: for each of the
 * {@link Mutants}, builds the engine with that one bug ({@link MutantBuild}) and runs the
 * checker ({@link CheckRun}) in a JVM of its own whose classpath starts with the mutated
 * engine, which its worker JVMs inherit, on every seed. The checker must be able to step
 * Redis' clock ({@link ClockSteps}), so the harness fails at once without libfaketime.
 * Every mutant must be caught on every seed: a run that reports a violation or fails;
 * first the unmutated engine, run the same way (on one Redis, and on a Redlock quorum
 * when a selected mutant is caught there, {@link Mutant#nodes()}), must report none on
 * every seed. Prints a table of the runs (mutant, seed, caught, violation kinds, time);
 * the mutated engine is built in {@code target/mutants/<id>}, and the output and
 * histories of each run are kept in {@code target/mutants/<id>-histories}.
 * <p>
 * Run by the {@code mutation} profile only:
 * {@code ./mvnw -pl lock-autoconfigure -am verify -Pmutation}, with
 * {@code -Ddistlock.mutation.only=<id>,...} for some mutants (or
 * {@code -Ddistlock.mutation.only=control} for the unmutated engine alone),
 * {@code -Ddistlock.mutation.seeds=<seed>,...} and
 * {@code -Ddistlock.mutation.seconds=<n>} (the checker's run on each seed).
 */
@EnabledIfSystemProperty(named = "distlock.mutation.seconds", matches = "\\d+")
@Timeout(value = 3, unit = TimeUnit.HOURS)
class MutationScoreTests {

	private static final String CONTROL = "control";

	private static final Path ROOT = Path.of("target", "mutants");

	/** Time for a run beyond its seconds of faults: start, settling, checks. */
	private static final Duration RUN_OVERHEAD = Duration.ofMinutes(4);

	private static final Pattern SUMMARY = Pattern.compile("^\\[check\\] seed=.* violations=(\\d+) \\{(.*)\\}$");

	private final int seconds = Integer.getInteger("distlock.mutation.seconds");

	private final List<Long> seeds = Arrays.stream(System.getProperty("distlock.mutation.seeds", "6,9").split(","))
		.map(String::trim)
		.map(Long::valueOf)
		.toList();

	@Test
	void checkerCatchesEveryMutant() throws Exception {
		assertThat(RedisServer.canStepClock())
			.as("the checker steps Redis' clock back (clock-step, for token-ignores-last), which needs libfaketime: "
					+ "install the package libfaketime")
			.isTrue();
		Path module = Path.of("").toAbsolutePath();
		List<Mutant> mutants = selected();
		for (Mutant mutant : mutants) {
			// Fails at once when a refactoring left a mutant's original text behind
			mutant.mutatedText(module);
		}
		List<Run> runs = new ArrayList<>();
		Path control = MutantBuild.emptied(ROOT.resolve(CONTROL));
		for (int nodes : mutants.isEmpty() ? Set.of(1)
				: mutants.stream().map(Mutant::nodes).collect(Collectors.toCollection(TreeSet::new))) {
			for (long seed : this.seeds) {
				runs.add(check(controlId(nodes), control, seed, nodes));
			}
		}
		List<Run> controlCaught = runs.stream().filter(Run::caught).toList();
		assertThat(controlCaught).as("violations on the unmutated engine:%n%s", table(runs)).isEmpty();
		List<String> missed = new ArrayList<>();
		for (Mutant mutant : mutants) {
			Path directory = MutantBuild.build(mutant, module, ROOT);
			List<Long> missedOn = new ArrayList<>();
			for (long seed : this.seeds) {
				Run run = check(mutant.id(), directory, seed, mutant.nodes());
				runs.add(run);
				if (!run.caught()) {
					missedOn.add(seed);
				}
			}
			if (!missedOn.isEmpty()) {
				missed.add(mutant.id() + " on seeds " + missedOn + " (" + mutant.promise() + ")");
			}
		}
		System.out.println("[mutation] score " + (mutants.size() - missed.size()) + "/" + mutants.size()
				+ " caught on every seed, seeds " + this.seeds + ", " + this.seconds + " s each\n" + table(runs));
		if (mutants.equals(Mutants.ALL)) {
			drawFigure(runs);
		}
		assertThat(missed).as("mutants the checker missed:%n%s", table(runs)).isEmpty();
	}

	/**
	 * Draw the result of a run of the whole set, in {@code target/mutants} and as the
	 * figure of {@code docs/reliability.md}.
	 */
	private void drawFigure(List<Run> runs) throws IOException {
		List<Run> controls = runs.stream().filter((run) -> run.id().equals(CONTROL)).toList();
		double minutes = controls.size() * this.seconds / 60.0;
		MutationScoreFigure.Throughput throughput = new MutationScoreFigure.Throughput(controls.size(),
				controls.stream().mapToLong(Run::faults).sum() / minutes,
				controls.stream().mapToLong(Run::operations).sum() / minutes, 0);
		List<MutationScoreFigure.MutantResult> results = Mutants.ALL.stream()
			.map((mutant) -> new MutationScoreFigure.MutantResult(mutant.id(), runs.stream()
				.filter((run) -> run.id().equals(mutant.id()))
				.map((run) -> new MutationScoreFigure.SeedResult(run.seed(), run.caught(), run.seconds(), run.kinds()))
				.toList()))
			.toList();
		String svg = MutationScoreFigure.svg(results, throughput,
				this.seconds + " s on seeds " + this.seeds + " per mutant, " + LocalDate.now(ZoneOffset.UTC) + ", "
						+ Runtime.getRuntime().availableProcessors() + " CPUs");
		Files.writeString(ROOT.resolve("mutation-score.svg"), svg);
		Files.writeString(Path.of("..", "docs", "reliability-mutation-score.svg"), svg);
	}

	private List<Mutant> selected() {
		String only = System.getProperty("distlock.mutation.only", "");
		if (only.isBlank()) {
			return Mutants.ALL;
		}
		if (only.trim().equals(CONTROL)) {
			return List.of();
		}
		Set<String> ids = Arrays.stream(only.split(",")).map(String::trim).collect(Collectors.toSet());
		List<Mutant> selected = Mutants.ALL.stream().filter((mutant) -> ids.contains(mutant.id())).toList();
		assertThat(selected).as("mutants named by distlock.mutation.only=%s", only).hasSameSizeAs(ids);
		return selected;
	}

	/**
	 * Return the id of the runs of the unmutated engine on the given number of lock
	 * nodes: {@value #CONTROL} on one Redis, {@code control-<n>-nodes} on a quorum.
	 */
	private static String controlId(int nodes) {
		return (nodes == 1) ? CONTROL : CONTROL + "-" + nodes + "-nodes";
	}

	/**
	 * Run the checker in a JVM of its own with the given directory first on its
	 * classpath, on the given number of lock nodes.
	 */
	private Run check(String id, Path directory, long seed, int nodes) throws IOException {
		String classpath = directory.toAbsolutePath() + File.pathSeparator + System.getProperty("java.class.path");
		Path histories = directory.resolveSibling(id + "-histories").resolve("seed-" + seed);
		long started = System.nanoTime();
		boolean caught;
		String kinds;
		List<String> lines;
		try (RivalJvm checker = RivalJvm.builder(CheckRun.class)
			.jvmOptions("-cp", classpath)
			.args(Long.toString(seed), Integer.toString(this.seconds), histories.toString(), Integer.toString(nodes))
			.start()) {
			try {
				int exit = checker.awaitExit(Duration.ofSeconds(this.seconds).plus(RUN_OVERHEAD));
				caught = exit != 0;
				kinds = violationKinds(checker.lines());
				if (caught && kinds.isEmpty()) {
					kinds = "run failed (exit " + exit + ")";
				}
			}
			catch (AssertionError ex) {
				caught = true;
				kinds = "run did not end";
			}
			lines = checker.lines();
			Files.write(histories.resolveSibling("seed-" + seed + ".out"), lines, StandardCharsets.UTF_8);
		}
		Run run = new Run(id, seed, caught, kinds, Duration.ofNanos(System.nanoTime() - started).toSeconds(),
				summaryCount(lines, "faults"), summaryCount(lines, "operations"));
		System.out.println("[mutation] " + run);
		return run;
	}

	private static String violationKinds(List<String> lines) {
		for (String line : lines) {
			Matcher summary = SUMMARY.matcher(line);
			if (summary.matches()) {
				return summary.group(2);
			}
		}
		return "";
	}

	/**
	 * Return a count of the checker's summary line, such as its {@code faults=} or
	 * {@code operations=}, or 0 when the run printed none.
	 */
	private static long summaryCount(List<String> lines, String name) {
		Pattern count = Pattern.compile("\\b" + name + "=(\\d+)\\b");
		for (String line : lines) {
			if (SUMMARY.matcher(line).matches()) {
				Matcher matcher = count.matcher(line);
				return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
			}
		}
		return 0;
	}

	private static String table(List<Run> runs) {
		StringBuilder table = new StringBuilder(
				String.format("%-32s %22s %-7s %6s  %s%n", "mutant", "seed", "caught", "time", "violations"));
		for (Run run : runs) {
			table.append(String.format("%-32s %22d %-7s %5ds  %s%n", run.id(), run.seed(), run.caught() ? "yes" : "no",
					run.seconds(), run.kinds()));
		}
		return table.toString();
	}

	/**
	 * One run of the checker on one seed.
	 *
	 * @param id the mutant's id, or {@value #CONTROL}
	 * @param seed the seed
	 * @param caught whether the checker reported a violation or the run failed
	 * @param kinds the violations by kind, or how the run failed
	 * @param seconds how long the run took, start and checks included
	 * @param faults the faults the run injected
	 * @param operations the calls its workers made
	 */
	private record Run(String id, long seed, boolean caught, String kinds, long seconds, long faults, long operations) {

	}

}
