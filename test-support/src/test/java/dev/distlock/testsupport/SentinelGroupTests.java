package dev.distlock.testsupport;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link SentinelGroup} with real {@code redis-server} processes.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SentinelGroupTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	@Test
	void clientConnectedThroughTheSentinelsWritesToThePrimaryAndFollowsAFailover() {
		try (SentinelGroup group = SentinelGroup.start();
				RedisTestClient client = RedisTestClient.connect(group.uri(), COMMAND_TIMEOUT)) {
			RedisServer primary = group.primary();
			client.sync().set("key", "before");
			try (RedisTestClient direct = RedisTestClient.connect(primary.uri(), COMMAND_TIMEOUT)) {
				assertThat(direct.sync().get("key")).isEqualTo("before");
			}
			RedisServer promoted = group.failOver();
			assertThat(promoted.port()).isNotEqualTo(primary.port());
			try (RedisTestClient reconnected = RedisTestClient.connect(group.uri(), COMMAND_TIMEOUT)) {
				await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
					reconnected.sync().set("key", "after");
					assertThat(reconnected.sync().get("key")).isEqualTo("after");
				});
			}
			try (RedisTestClient direct = RedisTestClient.connect(promoted.uri(), COMMAND_TIMEOUT)) {
				assertThat(direct.sync().get("key")).isEqualTo("after");
			}
		}
	}

}
