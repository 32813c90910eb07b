package dev.distlock.redis;

/**
 * The {@link ClusterLockRegistryTests} through Spring Data Redis on Lettuce (a
 * {@code LettuceConnectionFactory}).
 */
class SpringDataLettuceClusterLockRegistryTests extends ClusterLockRegistryTests {

	@Override
	protected TestDriver driver() {
		return TestDriver.SPRING_DATA_LETTUCE;
	}

}
