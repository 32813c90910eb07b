package dev.distlock.redis;

/**
 * The {@link StandaloneLockRegistryTests} through Spring Data Redis on Jedis (a pooled
 * {@code JedisConnectionFactory}).
 */
class SpringDataJedisStandaloneLockRegistryTests extends StandaloneLockRegistryTests {

	@Override
	protected TestDriver driver() {
		return TestDriver.SPRING_DATA_JEDIS;
	}

}
