package dev.distlock.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;

/**
 * Runs the benchmarks and prints the report.
 *
 * <p>
 * Arguments: the mode ({@code full}, the default, {@code smoke}, {@code quorum} for the
 * Redlock quorum's scenarios alone, {@code cross} for the one-key scenarios alone (8
 * threads of one JVM, and the cross-process ones), with the spinner and distlock,
 * {@code held} for the held-locks scenario alone, or {@code requests} for Redis' time per
 * request of the raw floor and distlock alone, {@link RequestCost}), optionally a file to
 * write the report to as well, and optionally a file to draw the headline comparison of a
 * full run in ({@link HeadlineChart}).
 *
 * @since 0.1.0
 */
public final class BenchmarkMain {

	private static final int REQUEST_CYCLES = 20_000;

	private BenchmarkMain() {
	}

	/**
	 * Run the benchmarks.
	 * @param args mode and report file
	 * @throws IOException if the report cannot be written
	 */
	public static void main(String[] args) throws IOException {
		String mode = (args.length > 0) ? args[0] : "full";
		long start = System.nanoTime();
		if (mode.equals(RequestCost.MODE)) {
			report(RequestCost.run(REQUEST_CYCLES), start, args);
			System.exit(0);
		}
		BenchmarkConfig config = BenchmarkConfig.of(mode);
		Benchmarks.Result result = Benchmarks.run(config);
		report(result.format(), start, args);
		if (args.length > 2 && config.mode().equals("full")) {
			Path chart = Path.of(args[2]);
			Files.createDirectories(chart.toAbsolutePath().getParent());
			Files.writeString(chart,
					HeadlineChart.svg(result, "one full run, " + LocalDate.now() + "; " + result.header().get(1)),
					StandardCharsets.UTF_8);
			System.out.println("chart written to " + chart);
		}
		System.exit(0);
	}

	/**
	 * Print a report with the run's duration, and write it to the file the second
	 * argument names, if any.
	 */
	private static void report(String text, long startNanos, String[] args) throws IOException {
		String report = text + "\nrun took " + (System.nanoTime() - startNanos) / 1_000_000_000 + " s\n";
		System.out.println();
		System.out.println(report);
		if (args.length > 1) {
			Path file = Path.of(args[1]);
			Files.createDirectories(file.toAbsolutePath().getParent());
			Files.writeString(file, report, StandardCharsets.UTF_8);
			System.out.println("report written to " + file);
		}
	}

}
