package dev.distlock.autoconfigure;

import java.time.Duration;

import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the shutdown of {@link DistLockAutoConfiguration}'s registry with its
 * application context, on a real {@code redis-server}.
 */
@Timeout(30)
@ExtendWith(OutputCaptureExtension.class)
class DistLockShutdownTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s");

	@Test
	void closesTheRegistrysConnectionsBeforeTheConnectionFactoryShutsItsClientDown(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			LockRegistry registry = context.getBean(LockRegistry.class);
			try (LockLease lease = registry.acquire("report", Duration.ZERO)) {
				assertThat(registry.tryAcquire("report", Duration.ofMillis(100))).as("waited on release signals")
					.isEmpty();
			}
		});
		// A Jedis Sentinel listener left by an earlier test class of this JVM may still
		// be
		// retrying; only this context's warnings count.
		assertThat(
				output.getAll().lines().filter((line) -> line.contains("WARN") && !line.contains("SentinelListener")))
			.isEmpty();
	}

}
