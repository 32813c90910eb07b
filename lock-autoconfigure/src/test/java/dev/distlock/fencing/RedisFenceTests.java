package dev.distlock.fencing;

import java.time.Duration;

import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link RedisFenceContract} on a single {@code redis-server}.
 */
class RedisFenceTests extends RedisFenceContract {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Override
	protected LettuceConnectionFactory connectionFactory() {
		return new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.server().host(), redis.server().port()));
	}

	@Override
	protected TestLockRegistry locks(Duration leaseTime) {
		return TestLockRegistry.create(redis.server().uri(), leaseTime);
	}

}
