package dev.distlock.redis;

/**
 * The {@link SentinelLockRegistryTests} through Spring Data Redis on Lettuce (a
 * {@code LettuceConnectionFactory}).
 */
class SpringDataLettuceSentinelLockRegistryTests extends SentinelLockRegistryTests {

	@Override
	protected TestDriver driver() {
		return TestDriver.SPRING_DATA_LETTUCE;
	}

}
