package dev.distlock.testsupport;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for the steppable clock of {@link RedisServer}, against real {@code redis-server}
 * processes run with libfaketime; skipped where the package {@code libfaketime} is not
 * installed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisServerClockTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration STEP = Duration.ofSeconds(-5);

	/** Milliseconds the server's clock may have moved between two looks. */
	private static final long SLACK_MILLIS = 1000;

	@Test
	void steppingTheClockBackStepsTimeAndKeyExpiryAtOnce() {
		assumeLibfaketime();
		try (RedisServer server = RedisServer.startWithSteppableClock(); RedisTestClient client = connect(server)) {
			RedisCommands<String, String> redis = client.sync();
			redis.psetex("key", 1000, "value");
			long before = millis(redis.time());
			server.stepClock(STEP);
			long after = millis(redis.time());
			assertThat(after - before).isBetween(STEP.toMillis(), STEP.toMillis() + SLACK_MILLIS);
			assertThat(redis.pttl("key")).isGreaterThan(1000 - STEP.toMillis() - SLACK_MILLIS);
			assertThat(server.hasSteppableClock()).isTrue();
			assertThat(server.clockOffset()).isEqualTo(STEP);
		}
	}

	@Test
	void clockStaysSteppedAcrossARestart() {
		assumeLibfaketime();
		try (RedisServer server = RedisServer.startWithSteppableClock(); RedisTestClient client = connect(server)) {
			server.stepClock(STEP);
			server.stepClock(STEP);
			server.restart();
			long behind = System.currentTimeMillis() - millis(client.sync().time());
			assertThat(behind).isBetween(-2 * STEP.toMillis() - SLACK_MILLIS, -2 * STEP.toMillis() + SLACK_MILLIS);
		}
	}

	@Test
	void stepClockOfAServerStartedWithoutASteppableClockFails() {
		try (RedisServer server = RedisServer.start()) {
			assertThatIllegalStateException().isThrownBy(() -> server.stepClock(STEP))
				.withMessageContaining("startWithSteppableClock");
			assertThat(server.hasSteppableClock()).isFalse();
			assertThat(server.clockOffset()).isZero();
		}
	}

	private static void assumeLibfaketime() {
		assumeTrue(RedisServer.canStepClock(),
				"libfaketime is not installed (the package libfaketime), so no redis-server clock can be stepped");
	}

	private static long millis(List<String> time) {
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

	private static RedisTestClient connect(RedisServer server) {
		return RedisTestClient.connect(server.uri(), COMMAND_TIMEOUT);
	}

}
