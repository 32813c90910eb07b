package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import dev.distlock.DistributedLockException;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * An acquisition whose reply did not come within the command timeout, because Redis was
 * paused ({@code SIGSTOP}) with the command in its buffers, on every driver: the call
 * fails at the timeout, and once Redis resumes and runs the late acquisition, the lock is
 * given back long before its lease would run out. On a pooled connection (Jedis) the
 * give-back travels on another socket than the acquisition; Redis reads its sockets in
 * the order they became readable, so the acquisition written first runs first.
 */
@Timeout(60)
class TimedOutAcquisitionTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@ParameterizedTest
	@EnumSource(TestDriver.class)
	void lateAcquisitionOfAPausedRedisIsGivenBackLongBeforeItsLease(TestDriver driver) throws Exception {
		RedisServer server = this.closer.add(RedisServer.start());
		RedisLockSettings settings = RedisLockSettings.of("lock:", LEASE).withCommandTimeout(COMMAND_TIMEOUT);
		RedisLockRegistry registry = this.closer.add(TestLockRegistry.create(driver, server.uri(), settings))
			.registry();
		RedisLockRegistry rival = this.closer.add(TestLockRegistry.create(driver, server.uri(), settings)).registry();
		registry.acquire("warm-up", Duration.ZERO).release();
		server.pause();
		try {
			CompletableFuture<Void> attempt = CompletableFuture
				.runAsync(() -> registry.tryAcquire("stalled", Duration.ZERO));
			assertThatExceptionOfType(CompletionException.class).isThrownBy(attempt::join)
				.withCauseInstanceOf(DistributedLockException.class);
		}
		finally {
			server.resume();
		}
		RedisCommands<String, String> commands = this.closer.add(RedisTestClient.connect(server.uri(), LEASE)).sync();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(commands.exists("lock:stalled")).isZero());
		assertThat(rival.tryAcquire("stalled", Duration.ofSeconds(5))).isPresent();
	}

}
