package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServerExtension;
import dev.distlock.testsupport.RedisTestClient;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@link RedisLockRegistryContract} on a standalone {@code redis-server}.
 */
class StandaloneLockRegistryTests extends RedisLockRegistryContract {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Override
	protected TestLockRegistry connect(Duration leaseTime) {
		return TestLockRegistry.create(driver(), redis.server().uri(), leaseTime);
	}

	@Override
	public List<String> serverUris() {
		return List.of(redis.server().uri());
	}

	@Override
	protected Keys connectKeys(Closer closer) {
		RedisCommands<String, String> commands = closer
			.add(RedisTestClient.connect(redis.server().uri(), Duration.ofSeconds(5)))
			.sync();
		return new Keys(commands, commands);
	}

}
