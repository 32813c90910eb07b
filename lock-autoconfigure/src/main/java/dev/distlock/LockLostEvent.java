package dev.distlock;

/**
 * Published when a held lock is lost: its renewal failed or found another holder, its
 * fixed lease ran out, or its release found that the lease had expired or been taken
 * over. Listen with {@code @EventListener}. Published once per lost hold, from the thread
 * that noticed.
 *
 * @param name the lock's name, as given to the {@link LockRegistry}
 * @param key the lock's Redis key
 * @param fencingToken the fencing token of the hold that was lost
 * @param reason what revealed the loss
 * @since 0.1.0
 */
public record LockLostEvent(String name, String key, long fencingToken, String reason) implements LockEvent {

}
