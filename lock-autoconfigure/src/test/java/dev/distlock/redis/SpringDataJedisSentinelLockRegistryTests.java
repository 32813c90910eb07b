package dev.distlock.redis;

/**
 * The {@link SentinelLockRegistryTests} through Spring Data Redis on Jedis (a pooled
 * {@code JedisConnectionFactory}).
 */
class SpringDataJedisSentinelLockRegistryTests extends SentinelLockRegistryTests {

	@Override
	protected TestDriver driver() {
		return TestDriver.SPRING_DATA_JEDIS;
	}

}
