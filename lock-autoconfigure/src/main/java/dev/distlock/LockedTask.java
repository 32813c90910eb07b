package dev.distlock;

import org.jspecify.annotations.Nullable;

/**
 * A task run while holding a lock by {@link LockRegistry#executeLocked}.
 *
 * @param <T> the result type
 * @param <E> the checked exception the task may throw, propagated unwrapped
 * @since 0.1.0
 */
@FunctionalInterface
public interface LockedTask<T extends @Nullable Object, E extends Throwable> {

	/**
	 * Run the task.
	 * @return the result
	 * @throws E if the task fails
	 */
	T run() throws E;

}
