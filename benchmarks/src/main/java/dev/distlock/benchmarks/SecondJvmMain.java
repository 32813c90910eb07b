package dev.distlock.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The second JVM of the two-JVM scenario: connects one contender, prints {@code READY},
 * then runs a contended round for every
 * {@code RUN <round> <name> <threads> <millis> <cap>} line on standard input and answers
 * {@code DONE <round> <operations> <elapsedNanos> <waits in µs>}.
 *
 * @since 0.1.0
 */
public final class SecondJvmMain {

	private SecondJvmMain() {
	}

	/**
	 * Run the second JVM.
	 * @param args contender id, Redis host, Redis port, lease in milliseconds
	 * @throws Exception if reading standard input fails
	 */
	public static void main(String[] args) throws Exception {
		try (Contender contender = Contenders.create(args[0], args[1], Integer.parseInt(args[2]),
				Duration.ofMillis(Long.parseLong(args[3])))) {
			System.out.println("READY");
			System.out.flush();
			BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			String line;
			while ((line = in.readLine()) != null && line.startsWith("RUN ")) {
				String[] parts = line.split(" ");
				String name = parts[2];
				RoundResult result = RoundRunner.run(contender, Integer.parseInt(parts[3]), (thread) -> name, true,
						Duration.ofMillis(Long.parseLong(parts[4])).toNanos(), Integer.parseInt(parts[5]));
				System.out.println("DONE " + parts[1] + " " + result.operations() + " " + result.elapsedNanos() + " "
						+ result.latencies().toMicrosText());
				System.out.flush();
			}
		}
		System.exit(0);
	}

}
