package dev.distlock.actuate;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.distlock.redis.QuorumNodes;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.redis.RedisLockSettings;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.redis.connection.LockConnections;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import dev.distlock.testsupport.LettuceClients;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link DistLockHealthIndicator}'s status rules against a real {@code redis-server}.
 */
@Timeout(30)
class DistLockHealthIndicatorTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final CountDownLatch releaseWatchdog = new CountDownLatch(1);

	private final RedisClient client = RedisClient
		.create(RedisURI.builder(RedisURI.create(redis.server().uri())).withTimeout(Duration.ofSeconds(2)).build());

	private final RedisLockRegistry registry = new RedisLockRegistry(LockConnections.lettuce(this.client),
			RedisLockSettings.of("lock:", Duration.ofMillis(300)).withCommandTimeout(Duration.ofSeconds(2)),
			(event) -> {
			});

	private final DistLockHealthIndicator indicator = new DistLockHealthIndicator(this.registry);

	@AfterEach
	void close() {
		this.releaseWatchdog.countDown();
		this.registry.close();
		LettuceClients.shutdown(this.client);
	}

	@Test
	void upWithTheHeldLocksWhenRedisAnswersAndRenewalsAreOnTime() {
		this.registry.acquire("order", Duration.ZERO);
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("heldLocks", 1).containsEntry("renewalDelayMs", 0L);
	}

	@Test
	void downWhenRenewalsAreLateByMoreThanOnePeriod() {
		this.registry.acquire("order", Duration.ZERO).onLoss((lost) -> awaitQuietly(this.releaseWatchdog));
		try (RedisTestClient rival = RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5))) {
			// The next renewal finds the lock taken; the loss action, which runs on the
			// watchdog, then holds it up.
			rival.sync().set("lock:order", "someone-else");
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.indicator.health().getStatus().equals(Status.DOWN));
		Health health = this.indicator.health();
		assertThat(health.getDetails()).hasEntrySatisfying("error",
				(error) -> assertThat(error).asString().contains("ms late, more than one renewal period (100 ms)"));
	}

	@Test
	void downWithTheErrorWhenRedisDoesNotAnswer() {
		assertThat(this.indicator.health().getStatus()).isEqualTo(Status.UP);
		redis.server().pause();
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).hasEntrySatisfying("error",
				(error) -> assertThat(error).asString().contains("Redis did not answer within PT2S"));
		redis.server().resume();
		assertThat(this.indicator.health().getStatus()).isEqualTo(Status.UP);
	}

	@Test
	void upOnAMajorityOfRedlockNodesWithEachNodesStateAndDownWithoutOne() throws Exception {
		try (QuorumNodes nodes = new QuorumNodes(3);
				TestLockRegistry quorum = TestLockRegistry.createOnQuorum(nodes.uris(),
						RedisLockSettings.of("lock:", Duration.ofSeconds(1))
							.withCommandTimeout(Duration.ofSeconds(1)))) {
			DistLockHealthIndicator indicator = new DistLockHealthIndicator(quorum.registry());
			assertThat(indicator.health().getDetails()).containsEntry("nodes", List.of("UP", "UP", "UP"));
			nodes.node(0).kill();
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).hasEntrySatisfying("nodes",
					(states) -> assertThat(states).asInstanceOf(InstanceOfAssertFactories.list(String.class))
						.satisfiesExactly((state) -> assertThat(state).startsWith("DOWN: "),
								(state) -> assertThat(state).isEqualTo("UP"),
								(state) -> assertThat(state).isEqualTo("UP")));
			nodes.node(1).kill();
			health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).hasEntrySatisfying("error",
					(error) -> assertThat(error).asString().contains("distlock.redlock.nodes"));
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(20, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
