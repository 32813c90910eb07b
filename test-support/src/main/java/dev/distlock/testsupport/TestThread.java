package dev.distlock.testsupport;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * One named daemon thread that runs a test's tasks in order, so that a thread-owned lock
 * can be taken and released on the same thread, and whose stack the test can look at to
 * see where the thread waits. <pre class="code">
 * TestThread holder = closer.add(TestThread.start("holder"));
 * holder.run(lock::lock).get(10, TimeUnit.SECONDS);
 * await().until(() -> waiter.isIn("java.util.concurrent.Semaphore"));
 * </pre>
 */
public final class TestThread implements AutoCloseable {

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private final ExecutorService executor;

	private final Thread thread;

	private TestThread(String name) {
		Thread[] created = new Thread[1];
		this.executor = Executors.newSingleThreadExecutor((task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			created[0] = thread;
			return thread;
		});
		CompletableFuture.runAsync(() -> {
		}, this.executor).join();
		this.thread = created[0];
	}

	/**
	 * Starts a thread with the given name.
	 * @param name the thread's name
	 * @return the running thread, idle
	 */
	public static TestThread start(String name) {
		return new TestThread(name);
	}

	/**
	 * Runs a task on this thread after the tasks submitted before.
	 * @param <T> the result type
	 * @param task the task
	 * @return its result, or its failure
	 */
	public <T> CompletableFuture<T> call(Callable<T> task) {
		CompletableFuture<T> result = new CompletableFuture<>();
		this.executor.execute(() -> {
			try {
				result.complete(task.call());
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		});
		return result;
	}

	/**
	 * Runs a task without result on this thread after the tasks submitted before.
	 * @param task the task
	 * @return its completion, or its failure
	 */
	public CompletableFuture<Void> run(Runnable task) {
		return call(() -> {
			task.run();
			return null;
		});
	}

	/**
	 * Tells whether a frame of the thread's stack is in a method whose qualified name
	 * ({@code package.Class$Inner.method}) starts with the given prefix.
	 * @param prefix a class name or a qualified method name
	 * @return whether the thread is in there now
	 */
	public boolean isIn(String prefix) {
		return Arrays.stream(this.thread.getStackTrace())
			.anyMatch((frame) -> (frame.getClassName() + "." + frame.getMethodName()).startsWith(prefix));
	}

	/**
	 * Waits until the thread is in a method whose qualified name starts with the given
	 * prefix.
	 * @param prefix a class name or a qualified method name
	 * @param timeout how long to wait at most
	 */
	public void awaitIn(String prefix, Duration timeout) {
		await().atMost(timeout).pollInterval(Duration.ofMillis(5)).until(() -> isIn(prefix));
	}

	/**
	 * Interrupts the thread.
	 */
	public void interrupt() {
		this.thread.interrupt();
	}

	/**
	 * Interrupts the thread and waits for it to end.
	 */
	@Override
	public void close() throws InterruptedException {
		this.executor.shutdownNow();
		if (!this.executor.awaitTermination(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new IllegalStateException(this.thread.getName() + " did not end within " + STOP_TIMEOUT);
		}
	}

	@Override
	public String toString() {
		return "TestThread '" + this.thread.getName() + "'";
	}

}
