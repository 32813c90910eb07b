package dev.distlock.redis;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import org.jspecify.annotations.Nullable;

/**
 * Tells virtual threads (JDK 21 and later) from platform threads on any JDK distlock runs
 * on: on JDK 17 every thread is a platform thread.
 */
final class VirtualThreads {

	private static final @Nullable MethodHandle IS_VIRTUAL = isVirtualMethod();

	private VirtualThreads() {
	}

	/**
	 * Return whether the thread is a virtual thread.
	 */
	static boolean isVirtual(Thread thread) {
		if (IS_VIRTUAL == null) {
			return false;
		}
		try {
			return (boolean) IS_VIRTUAL.invokeExact(thread);
		}
		catch (Throwable ex) {
			throw new IllegalStateException("Thread.isVirtual() failed", ex);
		}
	}

	private static @Nullable MethodHandle isVirtualMethod() {
		try {
			return MethodHandles.publicLookup()
				.findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
		}
		catch (NoSuchMethodException | IllegalAccessException ex) {
			return null;
		}
	}

}
