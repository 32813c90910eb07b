package dev.distlock.testsupport;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisServerExtension}: each test leaves the server in a bad state that
 * the next one must not see.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisServerExtensionTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static int port;

	@Test
	@Order(1)
	void leavesDataBehindAndKillsTheServer() {
		port = redis.server().port();
		try (RedisTestClient client = connect()) {
			client.sync().set("key", "value");
		}
		redis.server().kill();
	}

	@Test
	@Order(2)
	void getsAnEmptyServerRestartedOnTheSamePort() {
		assertThat(redis.server().port()).isEqualTo(port);
		try (RedisTestClient client = connect()) {
			assertThat(client.sync().dbsize()).isZero();
			client.sync().set("key", "value");
		}
		redis.server().pause();
	}

	@Test
	@Order(3)
	void getsAResumedAndFlushedServer() {
		try (RedisTestClient client = connect()) {
			assertThat(client.sync().dbsize()).isZero();
		}
	}

	private static RedisTestClient connect() {
		return RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(2));
	}

}
