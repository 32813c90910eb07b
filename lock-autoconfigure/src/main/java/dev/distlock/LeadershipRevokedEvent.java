package dev.distlock;

/**
 * Published when this instance stops being leader: its {@link Leadership} yielded,
 * stopped, or found its lock lost (a renewal found it gone or taken, renewals failed
 * until its lease would run out, or its lease ran out with no renewal confirmed). Listen
 * with {@code @EventListener}. Published once per term, from the leadership's thread,
 * before the lock is released and, for a lost lock, at the latest when its lease runs out
 * by this JVM's clock.
 *
 * @param name the leadership's name, as given to the {@link LockRegistry}
 * @param key the Redis key of its lock
 * @param fencingToken the fencing token of the term that ended
 * @param reason why the term ended
 * @since 0.1.0
 */
public record LeadershipRevokedEvent(String name, String key, long fencingToken, String reason) implements LockEvent {

}
