package dev.distlock.autoconfigure;

import dev.distlock.LockRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of leader election: the leaderships named in
 * {@code distlock.leader.names} campaign from the start of the application context to its
 * stop, on the {@link LockRegistry} bean, whichever configuration defined it.
 * {@code @LeaderOnly} methods are intercepted by
 * {@link DistLockInterceptionAutoConfiguration}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class)
@ConditionalOnBean(LockRegistry.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistLockProperties.class)
public final class DistLockLeadershipAutoConfiguration {

	@Bean
	ConfiguredLeaderships distlockLeaderships(LockRegistry registry, DistLockProperties properties) {
		int phase = (registry instanceof SmartLifecycle lifecycle) ? lifecycle.getPhase() : 0;
		return new ConfiguredLeaderships(properties.getLeader().getNames().stream().map(registry::leadership).toList(),
				phase);
	}

}
