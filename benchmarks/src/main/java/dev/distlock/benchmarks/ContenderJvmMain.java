package dev.distlock.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One JVM of the cross-process scenarios ({@link ContenderJvms}): connects the given
 * contenders, prints {@code READY}, then runs a contended round for every
 * {@code RUN <round> <contender id> <name> <threads> <millis> <cap> <start>} line on
 * standard input, starting at {@code start} (epoch milliseconds) so that every JVM of the
 * round starts together, and answers
 * {@code DONE <round> <acquisitions> <elapsedNanos> <waits in µs>}. Every holder also
 * increments the {@link SharedCounter} in the given file.
 *
 * @since 0.1.0
 */
public final class ContenderJvmMain {

	private ContenderJvmMain() {
	}

	/**
	 * Run the JVM.
	 * @param args Redis host, Redis port, lease in milliseconds, counter file, contender
	 * ids
	 * @throws Exception if reading standard input fails
	 */
	public static void main(String[] args) throws Exception {
		String host = args[0];
		int port = Integer.parseInt(args[1]);
		Duration leaseTime = Duration.ofMillis(Long.parseLong(args[2]));
		SharedCounter counter = SharedCounter.map(Path.of(args[3]));
		List<String> ids = List.of(args).subList(4, args.length);
		try (Contenders contenders = Contenders.connect(ids, host, port, leaseTime)) {
			System.out.println("READY");
			System.out.flush();
			BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			String line;
			while ((line = in.readLine()) != null && line.startsWith("RUN ")) {
				String[] parts = line.split(" ");
				String name = parts[3];
				Thread.sleep(Math.max(0, Long.parseLong(parts[7]) - System.currentTimeMillis()));
				RoundResult result = RoundRunner.run(contenders.get(parts[2]), Integer.parseInt(parts[4]),
						(thread) -> name, true, Duration.ofMillis(Long.parseLong(parts[5])).toNanos(),
						Integer.parseInt(parts[6]), counter::increment);
				System.out.println("DONE " + parts[1] + " " + result.operations() + " " + result.elapsedNanos() + " "
						+ result.latencies().toMicrosText());
				System.out.flush();
			}
		}
		System.exit(0);
	}

}
