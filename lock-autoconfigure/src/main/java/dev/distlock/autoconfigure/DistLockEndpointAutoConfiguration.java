package dev.distlock.autoconfigure;

import java.util.List;

import dev.distlock.LockIntrospector;
import dev.distlock.actuate.DistLockEndpoint;
import dev.distlock.actuate.ForceReleaseDistLockEndpoint;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link DistLockEndpoint distlock endpoint}, which lists the
 * locks this instance holds; with
 * {@code management.endpoint.distlock.force-release.enabled}, of the
 * {@link ForceReleaseDistLockEndpoint} instead, which also releases a lock whoever holds
 * it.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DistLockAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(LockIntrospector.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@ConditionalOnAvailableEndpoint(DistLockEndpoint.class)
@EnableConfigurationProperties({ DistLockEndpointProperties.class, DistLockProperties.class })
public final class DistLockEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(DistLockEndpoint.class)
	@ConditionalOnBooleanProperty("management.endpoint.distlock.force-release.enabled")
	ForceReleaseDistLockEndpoint distlockForceReleaseEndpoint(LockIntrospector registry,
			DistLockEndpointProperties properties, DistLockProperties distlock,
			ApplicationEventPublisher eventPublisher) {
		return new ForceReleaseDistLockEndpoint(registry, properties.getShowValues(), properties.getRoles(),
				nodeAddresses(distlock), eventPublisher);
	}

	@Bean
	@ConditionalOnMissingBean
	DistLockEndpoint distlockEndpoint(LockIntrospector registry, DistLockEndpointProperties properties,
			DistLockProperties distlock) {
		return new DistLockEndpoint(registry, properties.getShowValues(), properties.getRoles(),
				nodeAddresses(distlock));
	}

	/**
	 * Return the addresses of the nodes of {@code distlock.redlock.nodes}, in order.
	 */
	private static List<String> nodeAddresses(DistLockProperties distlock) {
		return distlock.getRedlock().getNodes().stream().map(RedlockNodeUri::address).toList();
	}

}
