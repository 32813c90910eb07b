package dev.distlock.aop;

import java.time.Duration;

import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.autoconfigure.DistLockInterceptionAutoConfiguration;
import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Application contexts whose annotated methods are intercepted by the auto-configured
 * interceptors on a real {@code redis-server}, and registries of other processes on the
 * same server.
 */
public final class RedisInterceptionContexts {

	private RedisInterceptionContexts() {
	}

	/**
	 * Return a runner of contexts on the server: commands time out after 2 s, leases last
	 * the default 30 s, so that a first call slowed down by a busy machine does not
	 * outlive its lease.
	 * @param server the server
	 * @return the runner
	 */
	public static ApplicationContextRunner on(RedisServer server) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DistLockAutoConfiguration.class,
					DistLockInterceptionAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + server.port(),
					"spring.data.redis.timeout=2s");
	}

	/**
	 * Return a registry of its own on the server, as another process would lock with.
	 * @param server the server
	 * @return the registry, to be closed
	 */
	public static TestLockRegistry rival(RedisServer server) {
		return TestLockRegistry.create(server.uri(), Duration.ofSeconds(30));
	}

}
