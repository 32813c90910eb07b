package dev.distlock.check;

import dev.distlock.FencedLock;
import dev.distlock.FencedReadWriteLock;

/**
 * A {@link FencedReadWriteLock} whose sides are {@link RecordedLock}s.
 *
 * @param name the lock's name
 * @param readLock the recorded read side
 * @param writeLock the recorded write side
 */
record RecordedReadWriteLock(String name, FencedLock readLock, FencedLock writeLock) implements FencedReadWriteLock {

}
