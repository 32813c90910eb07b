package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * The ways a {@link RedisLockRegistry} can talk to Redis, which the contract suite and
 * the per-driver fault tests run on: Lettuce's own client, and a Spring Data Redis
 * connection factory on Jedis.
 */
public enum TestDriver {

	/** Lettuce's own client, as the auto-configuration takes it from Boot's factory. */
	LETTUCE,

	/**
	 * Spring Data Redis' {@code JedisConnectionFactory}, with a pool, as Boot makes it.
	 */
	SPRING_DATA_JEDIS;

	/**
	 * Return a started Spring Data Redis connection factory on Jedis for the server or
	 * Sentinel group at {@code uri} (a {@code redis://} or {@code redis-sentinel://} URI,
	 * with its user and password), answering within the given timeout.
	 * @param uri the Redis URI
	 * @param timeout the socket read timeout
	 * @return the factory; destroy it after use
	 */
	public RedisConnectionFactory connectionFactory(String uri, Duration timeout) {
		RedisURI redisUri = RedisURI.create(uri);
		RedisConfiguration configuration;
		if (redisUri.getSentinels().isEmpty()) {
			RedisStandaloneConfiguration standalone = new RedisStandaloneConfiguration(redisUri.getHost(),
					redisUri.getPort());
			RedisCredentials credentials = redisUri.getCredentialsProvider().resolveCredentials().block();
			if (credentials != null && credentials.hasPassword()) {
				standalone.setUsername(credentials.getUsername());
				standalone.setPassword(credentials.getPassword());
			}
			configuration = standalone;
		}
		else {
			RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration();
			sentinel.setMaster(redisUri.getSentinelMasterId());
			redisUri.getSentinels()
				.forEach((node) -> sentinel.addSentinel(new RedisNode(node.getHost(), node.getPort())));
			configuration = sentinel;
		}
		return start(configuration, timeout);
	}

	/**
	 * Return a started Spring Data Redis connection factory on Jedis for the Redis
	 * Cluster whose nodes are at {@code uris}.
	 * @param uris the URIs of the cluster's nodes
	 * @param timeout the socket read timeout
	 * @return the factory; destroy it after use
	 */
	public RedisConnectionFactory clusterConnectionFactory(List<String> uris, Duration timeout) {
		RedisClusterConfiguration cluster = new RedisClusterConfiguration();
		uris.stream()
			.map(RedisURI::create)
			.forEach((node) -> cluster.addClusterNode(new RedisNode(node.getHost(), node.getPort())));
		return start(cluster, timeout);
	}

	private static RedisConnectionFactory start(RedisConfiguration configuration, Duration timeout) {
		JedisClientConfiguration client = JedisClientConfiguration.builder()
			.connectTimeout(timeout)
			.readTimeout(timeout)
			.usePooling()
			.build();
		JedisConnectionFactory factory;
		if (configuration instanceof RedisSentinelConfiguration sentinel) {
			factory = new JedisConnectionFactory(sentinel, client);
		}
		else if (configuration instanceof RedisClusterConfiguration cluster) {
			factory = new JedisConnectionFactory(cluster, client);
		}
		else {
			factory = new JedisConnectionFactory((RedisStandaloneConfiguration) configuration, client);
		}
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
