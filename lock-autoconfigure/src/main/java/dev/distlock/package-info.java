/**
 * Distributed locks on Redis: the API that applications program against.
 *
 * <p>
 * The words mean one thing each. A <em>lock</em> is a name ({@link LockName}) that at
 * most one holder has at a time; a <em>hold</em> is one acquisition of it, from acquire
 * to release, with its own fencing token, which the API hands out as a {@link LockLease}
 * ({@link FencedLock#currentHold()} returns the current thread's hold as one) and
 * operations list as a {@link HeldLock}; a <em>lease</em> is the hold's time-limited
 * claim in Redis, renewed by the watchdog until released.
 *
 * <p>
 * Names follow the same rule: {@code DistributedLock*} for the annotation
 * ({@link DistributedLock}, and {@link DistributedLockException}, the root of distlock's
 * exceptions), {@code Lock*} for the API's other types and the engine's parts, and
 * {@code DistLock*} for the Spring integration (the interception and its advisors,
 * auto-configurations, properties, endpoint, health indicator). Bean names start with
 * {@code distlock}, like the properties.
 */
@NullMarked
package dev.distlock;

import org.jspecify.annotations.NullMarked;
