package dev.distlock.autoconfigure;

import java.time.Duration;

import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests for the choice of {@link DistLockAutoConfiguration}'s connection factory among
 * several, with {@link DistLockConnectionFactory}, on two real {@code redis-server}s: one
 * for the application's cache, one for its locks.
 */
@Timeout(30)
@ExtendWith(OutputCaptureExtension.class)
class DistLockConnectionFactoryTests {

	@RegisterExtension
	static final RedisServerExtension cacheRedis = new RedisServerExtension();

	@RegisterExtension
	static final RedisServerExtension lockRedis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class));

	@Test
	void locksOnTheDedicatedRedisOnlyBesideAPrimaryOne() {
		this.contextRunner.withUserConfiguration(DedicatedLockRedis.class)
			.run((context) -> assertLocksOn(context, lockRedis, cacheRedis));
	}

	@Test
	void locksOnTheAnnotatedFactoryWhenNoneIsPrimary() {
		this.contextRunner.withUserConfiguration(CacheRedis.class, AnnotatedLockRedis.class)
			.run((context) -> assertLocksOn(context, lockRedis, cacheRedis));
	}

	@Test
	void locksOnThePrimaryFactoryWhenNoneIsAnnotated() {
		this.contextRunner.withUserConfiguration(PrimaryCacheRedis.class, PlainLockRedis.class)
			.run((context) -> assertLocksOn(context, cacheRedis, lockRedis));
	}

	@Test
	void severalFactoriesWithoutQualifierOrPrimaryFailStartupNamingThemAndTheFix() {
		this.contextRunner.withUserConfiguration(CacheRedis.class, PlainLockRedis.class).run((context) -> {
			FailureAnalysis analysis = analyzeStartupFailure(context);
			assertThat(analysis.getDescription())
				.isEqualTo("distlock needs one RedisConnectionFactory for its locks, but found 2 and none is marked"
						+ " for distlock:" + System.lineSeparator() + "- 'cacheRedis'" + System.lineSeparator()
						+ "- 'lockRedis'");
			assertThat(analysis.getAction()).isEqualTo("Annotate the @Bean of the connection factory that distlock"
					+ " should lock on with @DistLockConnectionFactory (dev.distlock.autoconfigure), or mark one of"
					+ " them @Primary to use it for locks and everything else.");
		});
	}

	@Test
	void springBootReportsSeveralFactoriesThroughTheAnalyzer(CapturedOutput output) {
		SpringApplication application = new SpringApplication(TwoRedisApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		assertThatException().isThrownBy(() -> application.run("--spring.main.banner-mode=off"))
			.satisfies((ex) -> assertThat(NestedExceptionUtils.getMostSpecificCause(ex))
				.isInstanceOf(NoUniqueLockConnectionFactoryException.class));
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("- 'cacheRedis'")
			.contains("- 'lockRedis'")
			.contains("@DistLockConnectionFactory");
	}

	private static void assertLocksOn(AssertableApplicationContext context, RedisServerExtension locks,
			RedisServerExtension other) {
		assertThat(context).hasNotFailed();
		try (LockLease lease = context.getBean(LockRegistry.class).acquire("report", Duration.ZERO);
				RedisTestClient lockClient = RedisTestClient.connect(locks.server().uri(), Duration.ofSeconds(5));
				RedisTestClient otherClient = RedisTestClient.connect(other.server().uri(), Duration.ofSeconds(5))) {
			assertThat(lockClient.sync().exists("lock:report")).isOne();
			assertThat(otherClient.sync().keys("*")).isEmpty();
		}
	}

	private static FailureAnalysis analyzeStartupFailure(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
			.isInstanceOf(NoUniqueLockConnectionFactoryException.class);
		FailureAnalysis analysis = new NoUniqueLockConnectionFactoryFailureAnalyzer()
			.analyze(context.getStartupFailure());
		assertThat(analysis).isNotNull();
		return analysis;
	}

	private static LettuceConnectionFactory connectionFactory(RedisServerExtension redis) {
		return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", redis.server().port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
	}

	/**
	 * The user guide's recipe (A dedicated Redis for locks): the application's Redis,
	 * primary for everything else, and a Redis for locks.
	 */
	@Configuration(proxyBeanMethods = false)
	static class DedicatedLockRedis {

		@Bean
		@Primary
		LettuceConnectionFactory redisConnectionFactory() {
			return connectionFactory(cacheRedis);
		}

		@Bean
		@DistLockConnectionFactory
		LettuceConnectionFactory lockRedisConnectionFactory() {
			return connectionFactory(lockRedis);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CacheRedis {

		@Bean
		LettuceConnectionFactory cacheRedis() {
			return connectionFactory(cacheRedis);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PrimaryCacheRedis {

		@Bean
		@Primary
		LettuceConnectionFactory cacheRedis() {
			return connectionFactory(cacheRedis);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AnnotatedLockRedis {

		@Bean
		@DistLockConnectionFactory
		LettuceConnectionFactory lockRedis() {
			return connectionFactory(lockRedis);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PlainLockRedis {

		@Bean
		LettuceConnectionFactory lockRedis() {
			return connectionFactory(lockRedis);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class })
	@Import({ CacheRedis.class, PlainLockRedis.class })
	static class TwoRedisApplication {

	}

}
