package dev.distlock.redis;

/**
 * The {@link ClusterLockRegistryTests} through Spring Data Redis on Jedis (a pooled
 * {@code JedisConnectionFactory}).
 */
class SpringDataJedisClusterLockRegistryTests extends ClusterLockRegistryTests {

	@Override
	protected TestDriver driver() {
		return TestDriver.SPRING_DATA_JEDIS;
	}

}
