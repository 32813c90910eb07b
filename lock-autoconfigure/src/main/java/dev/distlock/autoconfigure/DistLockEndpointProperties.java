package dev.distlock.autoconfigure;

import java.util.LinkedHashSet;
import java.util.Set;

import dev.distlock.actuate.DistLockEndpoint;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties for the {@link DistLockEndpoint distlock endpoint}.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("management.endpoint.distlock")
public class DistLockEndpointProperties {

	/**
	 * When to show the key values in lock names and keys; hidden values are shown as
	 * '******'.
	 */
	private Show showValues = Show.NEVER;

	/**
	 * Roles used to determine whether a user is authorized to be shown key values. When
	 * empty, all authenticated users are authorized.
	 */
	private final Set<String> roles = new LinkedHashSet<>();

	private final ForceRelease forceRelease = new ForceRelease();

	public Show getShowValues() {
		return this.showValues;
	}

	public void setShowValues(Show showValues) {
		this.showValues = showValues;
	}

	public Set<String> getRoles() {
		return this.roles;
	}

	public ForceRelease getForceRelease() {
		return this.forceRelease;
	}

	/**
	 * Force release: a write operation that releases a lock whoever holds it.
	 */
	public static class ForceRelease {

		/**
		 * Whether the endpoint has a write operation that releases a lock whoever holds
		 * it, audited; without it, the endpoint only reads.
		 */
		private boolean enabled;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

}
