package dev.distlock.test.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.DistributedLock;
import dev.distlock.LockContext;
import dev.distlock.LockLease;
import dev.distlock.LockLostEvent;
import dev.distlock.LockRegistry;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.autoconfigure.DistLockLeadershipAutoConfiguration;
import dev.distlock.redis.RedisLockRegistry;
import dev.distlock.test.InMemoryLockRegistry;
import dev.distlock.test.LockFaults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link InMemoryDistLockAutoConfiguration}: {@code distlock.store=in-memory}
 * puts the in-JVM registry under the application's {@code @DistributedLock} methods, on
 * Spring Boot's auto-configuration as an application has it, with no Redis running.
 */
@Timeout(30)
class InMemoryDistLockAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
				DistLockInterceptionAutoConfiguration.class, DistLockLeadershipAutoConfiguration.class,
				InMemoryDistLockAutoConfiguration.class))
		.withUserConfiguration(ReportConfiguration.class);

	@Test
	void inMemoryStoreMakesTheRegistryAnInMemoryOneWithTheConfiguredLease() {
		this.contextRunner.withPropertyValues("distlock.store=in-memory", "distlock.lease-time=12s").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(LockRegistry.class);
			InMemoryLockRegistry registry = context.getBean(InMemoryLockRegistry.class);
			assertThat(registry.renewalPeriod()).isEqualTo(Duration.ofSeconds(4));
		});
	}

	@Test
	void storeSpelledAsTheEnumIsInMemoryToo() {
		this.contextRunner.withPropertyValues("distlock.store=IN_MEMORY")
			.run((context) -> assertThat(context).getBean(LockRegistry.class).isInstanceOf(InMemoryLockRegistry.class));
	}

	@Test
	void withoutThePropertyTheRegistryLocksOnRedis() {
		this.contextRunner
			.run((context) -> assertThat(context).getBean(LockRegistry.class).isInstanceOf(RedisLockRegistry.class));
	}

	@Test
	void annotatedMethodsLockInTheJvmAndALossReachesTheirCallerAndTheListeners() {
		this.contextRunner.withPropertyValues("distlock.store=in-memory").run((context) -> {
			ReportService reports = context.getBean(ReportService.class);
			LockRegistry registry = context.getBean(LockRegistry.class);
			assertThat(reports.runWhileHeld(() -> registry.isLocked("nightly"))).isTrue();
			assertThat(registry.isLocked("nightly")).isFalse();
			assertThatExceptionOfType(dev.distlock.LockLostException.class)
				.isThrownBy(() -> reports.runWhileHeld(() -> LockFaults.expire(registry, "nightly")));
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(context.getBean(LostLocks.class).names).containsExactly("nightly"));
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class ReportConfiguration {

		@Bean
		ReportService reportService() {
			return new ReportService();
		}

		@Bean
		LostLocks lostLocks() {
			return new LostLocks();
		}

	}

	static class ReportService {

		@DistributedLock(name = "nightly")
		<T> T runWhileHeld(java.util.function.Supplier<T> work) {
			LockLease lease = LockContext.currentLease().orElseThrow();
			assertThat(lease.isValid()).isTrue();
			return work.get();
		}

	}

	static class LostLocks {

		final List<String> names = new CopyOnWriteArrayList<>();

		@EventListener
		void lost(LockLostEvent event) {
			this.names.add(event.name());
		}

	}

}
