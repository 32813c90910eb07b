package dev.distlock.redis;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.distlock.thread.VirtualThreads;

/**
 * Reaches the virtual threads of JDK 21 and later from tests compiled for Java 17. Tests
 * that use it run on JDK 21 and later only.
 */
public final class VirtualThreadAccess {

	private VirtualThreadAccess() {
	}

	/**
	 * Return a new executor that starts a virtual thread for each task
	 * ({@code Executors.newVirtualThreadPerTaskExecutor()}).
	 * @return the executor; shut it down after use
	 * @throws UnsupportedOperationException on a JDK without virtual threads
	 */
	public static ExecutorService newVirtualThreadPerTaskExecutor() {
		try {
			MethodHandle factory = MethodHandles.publicLookup()
				.findStatic(Executors.class, "newVirtualThreadPerTaskExecutor",
						MethodType.methodType(ExecutorService.class));
			return (ExecutorService) factory.invokeExact();
		}
		catch (NoSuchMethodException | IllegalAccessException ex) {
			throw new UnsupportedOperationException("This JDK has no virtual threads", ex);
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Return whether the current thread is a virtual thread.
	 * @return {@code false} on a platform thread and on a JDK without virtual threads
	 */
	public static boolean isCurrentThreadVirtual() {
		return VirtualThreads.isVirtual(Thread.currentThread());
	}

}
