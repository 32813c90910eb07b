package dev.distlock.actuate;

import java.time.Duration;
import java.util.List;

import dev.distlock.FencedLock;
import dev.distlock.HeldLock;
import dev.distlock.LockIntrospector;
import dev.distlock.LockLease;
import dev.distlock.actuate.DistLockEndpoint.HeldLockDescriptor;
import dev.distlock.actuate.DistLockEndpoint.HeldLocksDescriptor;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockEndpointAutoConfiguration;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistLockEndpointAutoConfiguration} and {@link DistLockEndpoint} on a
 * real {@code redis-server}.
 */
class DistLockEndpointAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockEndpointAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s", "management.endpoints.web.exposure.include=distlock");

	@Test
	@Timeout(30)
	void listsHeldLocksWithAllTheirFields() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(DistLockEndpoint.class);
			RedisLockRegistry registry = context.getBean(RedisLockRegistry.class);
			FencedLock order = registry.obtain("order:42");
			order.lock();
			try (LockLease report = registry.acquire("report", Duration.ofSeconds(1))) {
				Thread.sleep(20);
				HeldLocksDescriptor held = context.getBean(DistLockEndpoint.class).locks();
				assertThat(held.locks()).hasSize(2);
				HeldLockDescriptor first = held.locks().get(0);
				assertThat(first.name()).isEqualTo("order:42");
				assertThat(first.key()).isEqualTo("lock:order:42");
				assertThat(first.fencingToken()).isEqualTo(order.fencingToken()).isPositive();
				assertThat(first.heldForMs()).isGreaterThanOrEqualTo(20);
				assertThat(first.remainingTtlMs()).isPositive().isLessThanOrEqualTo(30_000);
				assertThat(first.owner()).isEqualTo(Thread.currentThread().getName());
				HeldLockDescriptor second = held.locks().get(1);
				assertThat(second.name()).isEqualTo("report");
				assertThat(second.key()).isEqualTo("lock:report");
				assertThat(second.fencingToken()).isEqualTo(report.fencingToken()).isPositive();
				assertThat(second.owner()).isEqualTo("lease");
				String json = JsonMapper.builder().build().writeValueAsString(held);
				System.out.println("distlock endpoint: " + json);
				assertThat(json).startsWith("{\"locks\":[{")
					.contains("\"name\":\"order:42\"", "\"key\":\"lock:order:42\"", "\"fencingToken\":",
							"\"heldForMs\":", "\"remainingTtlMs\":", "\"owner\":\"lease\"");
			}
			finally {
				order.unlock();
			}
			assertThat(context.getBean(DistLockEndpoint.class).locks().locks()).isEmpty();
		});
	}

	@Test
	void backsOffWithoutActuator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistLockEndpoint.class));
	}

	@Test
	void backsOffWhenEndpointIsNotExposed() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
					DistLockEndpointAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + redis.server().port())
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistLockEndpoint.class));
	}

	@Test
	void backsOffWhenEndpointIsDisabled() {
		this.contextRunner.withPropertyValues("management.endpoint.distlock.access=NONE")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistLockEndpoint.class));
	}

	@Test
	void backsOffWhenDistLockIsDisabled() {
		this.contextRunner.withPropertyValues("distlock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DistLockEndpoint.class));
	}

	@Test
	void backsOffWhenUserDefinesEndpoint() {
		this.contextRunner.withUserConfiguration(UserEndpointConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(DistLockEndpoint.class).hasBean("userEndpoint"));
	}

	@Test
	void listsTheHeldLocksOfAnyRegistryThatCanBeInspected() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DistLockAutoConfiguration.class, DistLockEndpointAutoConfiguration.class))
			.withUserConfiguration(InspectedRegistryConfiguration.class)
			.withPropertyValues("management.endpoints.web.exposure.include=distlock")
			.run((context) -> assertThat(context.getBean(DistLockEndpoint.class).locks().locks())
				.extracting(HeldLockDescriptor::name)
				.containsExactly("report"));
	}

	@Configuration(proxyBeanMethods = false)
	static class InspectedRegistryConfiguration {

		@Bean
		LockIntrospector inspectedRegistry() {
			HeldLock report = new HeldLock("report", "store:report", 7, Duration.ofSeconds(1), Duration.ofSeconds(2),
					"lease");
			return new LockIntrospector() {

				@Override
				public List<HeldLock> heldLocks() {
					return List.of(report);
				}

				@Override
				public void ping() {
				}

				@Override
				public Duration renewalPeriod() {
					return Duration.ofSeconds(10);
				}

				@Override
				public Duration renewalDelay() {
					return Duration.ZERO;
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserEndpointConfiguration {

		@Bean
		DistLockEndpoint userEndpoint(RedisLockRegistry registry) {
			return new DistLockEndpoint(registry);
		}

	}

}
