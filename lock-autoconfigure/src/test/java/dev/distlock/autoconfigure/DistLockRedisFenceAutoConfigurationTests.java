package dev.distlock.autoconfigure;

import dev.distlock.fencing.RedisFence;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistLockRedisFenceAutoConfiguration} on Spring Boot's Redis
 * auto-configuration and a real {@code redis-server}.
 */
@Timeout(30)
class DistLockRedisFenceAutoConfigurationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockRedisFenceAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.server().port(),
				"spring.data.redis.timeout=5s");

	@Test
	void providesARedisFenceWhoseKeysStartWithTheKeyPrefix() {
		this.contextRunner.withPropertyValues("distlock.key-prefix=app:").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisFence.class);
			context.getBean(RedisFence.class).advance("report", 5);
			assertThat(context.getBean(StringRedisTemplate.class).opsForValue().get("app:report!highest"))
				.isEqualTo("5");
		});
	}

	@Test
	void backsOffWithoutAStringRedisTemplate() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistLockRedisFenceAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisFence.class));
	}

	@Test
	void backsOffWhenDistlockIsDisabled() {
		this.contextRunner.withPropertyValues("distlock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisFence.class));
	}

	@Test
	void backsOffFromTheApplicationsRedisFence() {
		this.contextRunner.withUserConfiguration(OwnRedisFence.class)
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisFence.class)
				.hasBean("ownRedisFence"));
	}

	@Test
	void keyPrefixWithAnExclamationMarkFailsWithClearMessage() {
		this.contextRunner.withPropertyValues("distlock.key-prefix=lock!")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessage("Key prefix 'lock!' contains '!', which is reserved for distlock's helper keys"));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRedisFence {

		@Bean
		RedisFence ownRedisFence(StringRedisTemplate redis) {
			return new RedisFence(redis, "own:");
		}

	}

}
