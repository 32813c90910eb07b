package dev.distlock.fencing;

import java.time.Duration;
import java.util.List;

import dev.distlock.redis.TestLockRegistry;
import dev.distlock.testsupport.RedisClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link RedisFenceContract} on a three-node Redis Cluster, connected as Spring Boot
 * connects to {@code spring.data.redis.cluster.nodes}: every guarded write's keys share a
 * slot, or Redis would refuse its script with {@code CROSSSLOT}.
 */
class ClusterRedisFenceTests extends RedisFenceContract {

	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension();

	@Override
	protected LettuceConnectionFactory connectionFactory() {
		return new LettuceConnectionFactory(new RedisClusterConfiguration(List.of(redis.cluster().nodes().split(","))));
	}

	@Override
	protected TestLockRegistry locks(Duration leaseTime) {
		return TestLockRegistry.createOnCluster(redis.cluster().uris(), leaseTime);
	}

}
