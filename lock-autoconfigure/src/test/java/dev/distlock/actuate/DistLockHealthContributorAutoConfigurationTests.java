package dev.distlock.actuate;

import java.time.Duration;

import dev.distlock.LockLease;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockHealthContributorAutoConfiguration;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DistLockHealthContributorAutoConfiguration} and
 * {@link DistLockHealthIndicator} on a real {@code redis-server}.
 */
class DistLockHealthContributorAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockHealthContributorAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=500ms");

	@Test
	@Timeout(30)
	void reportsUpWithHeldLocksAndRenewalDelay() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(DistLockHealthIndicator.class);
			assertThat(context).hasBean("distlockHealthIndicator");
			try (LockLease lease = context.getBean(RedisLockRegistry.class).acquire("report", Duration.ofSeconds(1))) {
				Health health = context.getBean(DistLockHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("heldLocks", 1).containsEntry("renewalDelayMs", 0L);
			}
		});
	}

	@Test
	@Timeout(60)
	void reportsDownWhileRedisIsPausedAndUpAfterResume() {
		this.contextRunner.run((context) -> {
			HealthIndicator indicator = context.getBean(DistLockHealthIndicator.class);
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			redis.server().pause();
			try {
				Health health = indicator.health();
				System.out.println(
						"distlock health while Redis is paused: " + health.getStatus() + " " + health.getDetails());
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails()).containsKeys("error", "heldLocks", "renewalDelayMs");
			}
			finally {
				redis.server().resume();
			}
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(indicator.health().getStatus()).isEqualTo(Status.UP));
		});
	}

	@Test
	@Timeout(30)
	void contributesToTheHealthEndpointAsDistlock() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(HealthContributorAutoConfiguration.class,
					HealthContributorRegistryAutoConfiguration.class))
			.run((context) -> {
				HealthContributor contributor = context.getBean(HealthContributorRegistry.class)
					.getContributor("distlock");
				assertThat(contributor).isInstanceOf(DistLockHealthIndicator.class);
				assertThat(((HealthIndicator) contributor).health().getStatus()).isEqualTo(Status.UP);
			});
	}

	@Test
	void backsOffWithoutHealthSupport() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistLockHealthIndicator.class));
	}

	@Test
	void backsOffWhenHealthIndicatorIsDisabled() {
		this.contextRunner.withPropertyValues("management.health.distlock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistLockHealthIndicator.class));
	}

	@Test
	void backsOffWhenDistLockIsDisabled() {
		this.contextRunner.withPropertyValues("distlock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistLockHealthIndicator.class));
	}

}
