package dev.distlock.faults;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.RivalJvm;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two rival JVMs ({@link LoadWorkerMain}) of {@value #THREADS} threads each run critical
 * sections on {@value #NAMES} lock names for a bounded time, each section a non-atomic
 * read-modify-write of a per-name counter plus an {@code RPUSH} of its fencing token. At
 * the end no update is lost, fencing tokens strictly increase per name in write order, no
 * lock key is left in Redis (only the fencing keys), and the JVMs' threads are back to
 * their baseline once their registries are closed.
 * <p>
 * Runs for {@value #DEFAULT_SECONDS} seconds by default; longer with
 * {@code -Ddistlock.load.seconds=600}.
 */
@Timeout(value = 30, unit = java.util.concurrent.TimeUnit.MINUTES)
class LockLoadTests {

	private static final int JVMS = 2;

	private static final int THREADS = 32;

	private static final int NAMES = 100;

	private static final int DEFAULT_SECONDS = 20;

	private static final Duration RIVAL_START = Duration.ofSeconds(60);

	private static final Pattern STAT = Pattern.compile("(\\w+)=(\\d+)");

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void twoJvmsOfThirtyTwoThreadsLoseNoUpdateAndLeaveNothingBehind() {
		int seconds = Integer.getInteger("distlock.load.seconds", DEFAULT_SECONDS);
		RivalJvm[] rivals = new RivalJvm[JVMS];
		for (int j = 0; j < JVMS; j++) {
			rivals[j] = this.closer.add(RivalJvm.builder(LoadWorkerMain.class)
				.jvmOptions("-Xmx256m")
				.args(redis.server().uri(), String.valueOf(THREADS), String.valueOf(NAMES), String.valueOf(seconds))
				.start());
		}
		for (RivalJvm rival : rivals) {
			rival.awaitLine("READY", RIVAL_START);
		}
		long startNanos = System.nanoTime();
		for (RivalJvm rival : rivals) {
			rival.send("go");
		}
		Duration finish = Duration.ofSeconds(seconds).plus(RIVAL_START);
		long[] sections = new long[NAMES];
		long total = 0;
		long failures = 0;
		long lost = 0;
		long p99 = 0;
		long max = 0;
		for (RivalJvm rival : rivals) {
			long[] counts = Arrays.stream(rival.awaitLine("COUNTS ", finish).substring("COUNTS ".length()).split(","))
				.mapToLong(Long::parseLong)
				.toArray();
			for (int i = 0; i < NAMES; i++) {
				sections[i] += counts[i];
			}
			Map<String, Long> stats = stats(rival.awaitLine("STATS ", finish));
			total += stats.get("sections");
			failures += stats.get("failures");
			lost += stats.get("lost");
			p99 = Math.max(p99, stats.get("p99WaitMicros"));
			max = Math.max(max, stats.get("maxWaitMicros"));
			String threads = rival.awaitLine("THREADS ", finish);
			System.out.println("[load] " + rival + ": " + stats + "; " + threads);
			assertThat(threads).as("threads left after closing the registry").endsWith("extra=[]");
			assertThat(rival.awaitExit(finish)).isZero();
		}
		Duration elapsed = Duration.ofNanos(System.nanoTime() - startNanos);
		System.out.printf(
				"[load] %d JVMs x %d threads x %d names for %d s: %d sections, %.0f sections/s,"
						+ " p99 wait %.1f ms, max wait %.1f ms, %d timed out, %d lost%n",
				JVMS, THREADS, NAMES, seconds, total, total / (double) seconds, p99 / 1000.0, max / 1000.0, failures,
				lost);
		assertThat(total).isPositive();
		assertThat(lost).as("locks lost during a section").isZero();
		assertThat(failures).as("tryLock(30s) that timed out").isZero();
		try (RedisTestClient client = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(10))) {
			RedisCommands<String, String> commands = client.sync();
			for (int i = 0; i < NAMES; i++) {
				String counter = commands.get(LoadWorkerMain.counterKey(i));
				assertThat((counter != null) ? Long.parseLong(counter) : 0L)
					.as("counter of %s: no lost update", LoadWorkerMain.lockName(i))
					.isEqualTo(sections[i]);
				List<Long> tokens = commands.lrange(LoadWorkerMain.tokensKey(i), 0, -1)
					.stream()
					.map(Long::parseLong)
					.toList();
				assertThat(tokens).as("fencing tokens of %s in write order", LoadWorkerMain.lockName(i))
					.hasSize((int) sections[i])
					.isSorted()
					.doesNotHaveDuplicates();
			}
			assertThat(commands.keys("lock:*")).as("lock keys left").isEmpty();
			assertThat(commands.keys("{lock:*")).as("fencing keys, and marks of given-back tokens, which expire")
				.allMatch((key) -> key.matches("\\{lock:(load-\\d+|warm-up)}!(fence|given-back)"))
				.allMatch((key) -> commands.pttl(key) > 0);
		}
		System.out.println("[load] checked in " + elapsed.toSeconds() + " s after go");
	}

	private static Map<String, Long> stats(String line) {
		Map<String, Long> stats = new java.util.LinkedHashMap<>();
		Matcher matcher = STAT.matcher(line);
		while (matcher.find()) {
			stats.put(matcher.group(1), Long.parseLong(matcher.group(2)));
		}
		return stats;
	}

}
