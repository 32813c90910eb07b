package dev.distlock.redis;

/**
 * The {@link StandaloneLockRegistryTests} through Spring Data Redis on Lettuce (a
 * {@code LettuceConnectionFactory}).
 */
class SpringDataLettuceStandaloneLockRegistryTests extends StandaloneLockRegistryTests {

	@Override
	protected TestDriver driver() {
		return TestDriver.SPRING_DATA_LETTUCE;
	}

}
