package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.SentinelGroup;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@link RedisLockRegistryContract} through Redis Sentinel: registries connect with a
 * {@code redis-sentinel://} URI and lock on the primary the Sentinels name. Also: Spring
 * Boot's Sentinel properties, and a failover.
 */
class SentinelLockRegistryTests extends RedisLockRegistryContract {

	private static SentinelGroup group;

	@BeforeAll
	static void startGroup() {
		group = SentinelGroup.start();
	}

	@AfterAll
	static void stopGroup() {
		if (group != null) {
			group.close();
		}
	}

	@Test
	void autoConfiguredRegistryLocksThroughBootsSentinelProperties() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.sentinel.master=" + SentinelGroup.MASTER_NAME,
					"spring.data.redis.sentinel.nodes=" + group.nodes(), "spring.data.redis.timeout=2s")
			.run((context) -> {
				LockRegistry registry = context.getBean(LockRegistry.class);
				try (LockLease lease = registry.acquire("boot", Duration.ZERO)) {
					try (RedisTestClient primary = RedisTestClient.connect(group.primary().uri(),
							Duration.ofSeconds(5))) {
						assertThat(primary.sync().exists("lock:boot")).isOne();
					}
				}
			});
	}

	@Test
	void lockingGoesOnOnTheNewPrimaryAfterAFailover() {
		try (TestLockRegistry registry = connect(Duration.ofSeconds(30))) {
			registry.registry().acquire("before", Duration.ZERO).release();
			RedisServer promoted = group.failOver();
			await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
				try (LockLease lease = registry.registry().acquire("after", Duration.ZERO)) {
					try (RedisTestClient primary = RedisTestClient.connect(promoted.uri(), Duration.ofSeconds(5))) {
						assertThat(primary.sync().exists("lock:after")).isOne();
					}
				}
			});
		}
	}

	@Override
	protected TestLockRegistry connect(Duration leaseTime) {
		return TestLockRegistry.create(driver(), group.uri(), leaseTime);
	}

	@Override
	public List<String> serverUris() {
		return List.of(group.primary().uri());
	}

	@Override
	protected Keys connectKeys(Closer closer) {
		RedisCommands<String, String> commands = closer.add(RedisTestClient.connect(group.uri(), Duration.ofSeconds(5)))
			.sync();
		commands.flushall();
		return new Keys(commands, commands);
	}

}
