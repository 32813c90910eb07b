package dev.distlock.thread;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

import org.jspecify.annotations.Nullable;

/**
 * Virtual threads (JDK 21 and later) on any JDK distlock runs on: tells them from
 * platform threads, and starts them. On JDK 17 every thread is a platform thread.
 *
 * @since 0.1.0
 */
public final class VirtualThreads {

	private static final @Nullable MethodHandle IS_VIRTUAL = isVirtualMethod();

	private VirtualThreads() {
	}

	/**
	 * Return whether the thread is a virtual thread.
	 */
	public static boolean isVirtual(Thread thread) {
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

	/**
	 * Return the name of the thread, as a thread dump shows it: its name, or for an
	 * unnamed virtual thread (as an executor of virtual threads starts them)
	 * {@code VirtualThread[#<id>]}.
	 */
	public static String nameOf(Thread thread) {
		String name = thread.getName();
		return (name.isEmpty() && isVirtual(thread)) ? "VirtualThread[#" + thread.getId() + "]" : name;
	}

	/**
	 * Return an executor that runs each task on a new virtual thread of the given name,
	 * or {@code null} on a JDK without virtual threads, where no caller is one.
	 * @param name the name of every thread started
	 */
	public static @Nullable ExecutorService newThreadPerTaskExecutor(String name) {
		try {
			MethodHandles.Lookup lookup = MethodHandles.publicLookup();
			Class<?> builder = Class.forName("java.lang.Thread$Builder");
			Object virtual = lookup
				.findStatic(Thread.class, "ofVirtual",
						MethodType.methodType(Class.forName("java.lang.Thread$Builder$OfVirtual")))
				.invoke();
			virtual = lookup.findVirtual(builder, "name", MethodType.methodType(builder, String.class))
				.invoke(virtual, name);
			ThreadFactory factory = (ThreadFactory) lookup
				.findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class))
				.invoke(virtual);
			return (ExecutorService) lookup
				.findStatic(Executors.class, "newThreadPerTaskExecutor",
						MethodType.methodType(ExecutorService.class, ThreadFactory.class))
				.invoke(factory);
		}
		catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException ex) {
			return null;
		}
		catch (Throwable ex) {
			throw new IllegalStateException("Starting virtual threads failed", ex);
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
