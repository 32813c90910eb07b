package dev.distlock;

import java.time.Duration;

/**
 * Published when the watchdog could not renew a held lock (Redis did not answer in time,
 * or the connection failed) and the lease has time left for the next attempt: the hold is
 * still valid, and is lost, with a {@link LockLostEvent}, only if the renewals keep
 * failing until its lease would run out. Listen with {@code @EventListener}, for example
 * to stop starting work that the lock must cover. Published once per hold for each
 * renewal round that failed, from the watchdog's thread.
 *
 * @param name the lock's name, as given to the {@link LockRegistry}
 * @param key the lock's Redis key
 * @param fencingToken the fencing token of the hold
 * @param reason why the renewal failed
 * @param remainingTtl how long the lease is known to last without renewal
 * @since 0.1.0
 */
public record LockRenewalFailedEvent(String name, String key, long fencingToken, String reason,
		Duration remainingTtl) implements LockEvent {

}
