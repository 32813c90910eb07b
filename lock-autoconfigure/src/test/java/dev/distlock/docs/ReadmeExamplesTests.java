package dev.distlock.docs;

import java.time.Duration;

import dev.distlock.LockAcquisitionException;
import dev.distlock.LockRegistry;
import dev.distlock.aop.RedisInterceptionContexts;
import dev.distlock.docs.TokenStore.Write;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests that the README's snippets do what the README says, on a real
 * {@code redis-server}, in an application context with distlock's auto-configuration.
 */
@Timeout(30)
class ReadmeExamplesTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = RedisInterceptionContexts.on(redis.server())
		.withUserConfiguration(Examples.class);

	@Test
	void annotatedPaymentCarriesAGreaterFencingTokenEachTime() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			Receipt first = orders.pay(42);
			Receipt second = orders.pay(42);
			assertThat(first.fencingToken()).isPositive();
			assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
			assertThat(context.getBean(LockRegistry.class).isLocked("order:42")).isFalse();
		});
	}

	@Test
	void annotatedPaymentIsNotMadeWhileAnotherProcessHoldsTheOrder() {
		this.contextRunner.run((context) -> {
			try (TestLockRegistry rival = RedisInterceptionContexts.rival(redis.server())) {
				rival.registry().acquire("order:42", Duration.ZERO);
				assertThatExceptionOfType(LockAcquisitionException.class)
					.isThrownBy(() -> context.getBean(OrderService.class).pay(42));
			}
		});
	}

	@Test
	void leaseWritesTheReportWithItsFencingTokenAndReleasesTheLock() {
		this.contextRunner.run((context) -> {
			context.getBean(RegistryExamples.class).writeReport("totals");
			assertThat(context.getBean(TokenStore.class).writes()).singleElement().satisfies((write) -> {
				assertThat(write.value()).isEqualTo("totals");
				assertThat(write.fencingToken()).isPositive();
			});
			assertThat(context.getBean(LockRegistry.class).isLocked("report:daily")).isFalse();
		});
	}

	@Test
	void fencedLockWritesUnderIncreasingTokensAndNotWhileAnotherProcessHoldsIt() {
		this.contextRunner.run((context) -> {
			RegistryExamples examples = context.getBean(RegistryExamples.class);
			examples.reserve();
			try (TestLockRegistry rival = RedisInterceptionContexts.rival(redis.server())) {
				rival.registry().acquire("inventory", Duration.ZERO);
				examples.reserve();
			}
			examples.reserve();
			assertThat(context.getBean(TokenStore.class).writes()).extracting(Write::fencingToken)
				.hasSize(2)
				.isSorted()
				.doesNotHaveDuplicates();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Examples {

		@Bean
		OrderService orderService() {
			return new OrderService(new Payments());
		}

		@Bean
		TokenStore tokenStore() {
			return new TokenStore();
		}

		@Bean
		RegistryExamples registryExamples(LockRegistry locks, TokenStore store) {
			return new RegistryExamples(locks, store);
		}

	}

}
