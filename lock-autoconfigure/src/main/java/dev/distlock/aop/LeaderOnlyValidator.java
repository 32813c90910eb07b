package dev.distlock.aop;

import dev.distlock.LeaderOnly;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Checks every {@link LeaderOnly} method of every bean once the singletons exist, so that
 * a method naming a leadership the instance does not campaign for, or returning what a
 * skipped call cannot, fails the startup rather than being skipped on every instance.
 * Warns once about annotated methods that a proxy cannot intercept (private, final or
 * static).
 *
 * @since 0.1.0
 */
public class LeaderOnlyValidator implements SmartInitializingSingleton {

	private final ConfigurableListableBeanFactory beanFactory;

	private final LeaderOnlySpecResolver specs;

	/**
	 * Create a validator.
	 * @param beanFactory the beans to check
	 * @param specs resolves and checks annotations
	 */
	public LeaderOnlyValidator(ConfigurableListableBeanFactory beanFactory, LeaderOnlySpecResolver specs) {
		this.beanFactory = beanFactory;
		this.specs = specs;
	}

	@Override
	public void afterSingletonsInstantiated() {
		AnnotatedMethodCheck check = new AnnotatedMethodCheck();
		for (LockedMethod annotated : LockedMethod.findIn(this.beanFactory)) {
			if (LockedMethod.isLeaderOnly(annotated.method())) {
				check.check(annotated, "@" + LeaderOnly.class.getSimpleName(),
						() -> this.specs.resolve(annotated.method(), annotated.beanType()));
			}
		}
		check.throwIfAny();
	}

}
