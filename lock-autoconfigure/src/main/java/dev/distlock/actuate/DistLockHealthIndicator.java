package dev.distlock.actuate;

import java.time.Duration;
import java.util.List;

import dev.distlock.LockIntrospector;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.util.Assert;

/**
 * {@link HealthIndicator} for a lock registry's {@link LockIntrospector}: checks that
 * Redis answers on the connection that lock commands use and that the lease watchdog
 * renews on time.
 *
 * <p>
 * Reports {@code UP} when Redis answers {@code PING} and the last renewal round is at
 * most one renewal period late; {@code DOWN} with the error when Redis does not answer
 * within the command timeout; {@code DOWN} when the renewal round is more than one period
 * late. Leases last three renewal periods, so at that point held locks are close to
 * running out and may be lost: the instance cannot keep the mutual exclusion it promises,
 * which is a failure rather than a deliberate removal from service
 * ({@code OUT_OF_SERVICE}). The details always carry {@code heldLocks} (the number of
 * locks held) and {@code renewalDelayMs}; on several independent nodes (Redlock), also
 * {@code nodes}: each node's {@code UP}, or {@code DOWN} with its error, in the order
 * configured, while a majority answering is enough to be {@code UP}.
 *
 * @since 0.1.0
 * @see LockIntrospector#ping()
 * @see LockIntrospector#renewalDelay()
 */
public class DistLockHealthIndicator extends AbstractHealthIndicator {

	private final LockIntrospector registry;

	/**
	 * Create an indicator for the given registry.
	 * @param registry the registry to check
	 */
	public DistLockHealthIndicator(LockIntrospector registry) {
		super("Distributed lock health check failed");
		Assert.notNull(registry, "'registry' must not be null");
		this.registry = registry;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Duration delay = this.registry.renewalDelay();
		builder.withDetail("heldLocks", this.registry.heldLocks().size())
			.withDetail("renewalDelayMs", delay.toMillis());
		List<String> nodes = this.registry.pingNodes();
		if (!nodes.isEmpty()) {
			builder.withDetail("nodes", nodes);
		}
		try {
			this.registry.ping();
		}
		catch (RuntimeException ex) {
			builder.down(ex);
			return;
		}
		Duration period = this.registry.renewalPeriod();
		if (delay.compareTo(period) > 0) {
			builder.down()
				.withDetail("error",
						"Lease renewals are " + delay.toMillis() + " ms late, more than one renewal period ("
								+ period.toMillis() + " ms): held locks may run out");
			return;
		}
		builder.up();
	}

}
