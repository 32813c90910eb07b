package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockEvent;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.leader.LeadershipEvents;
import dev.distlock.thread.DaemonThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Tells a registry's event listener of its events, in the order they were published, on
 * one daemon thread of its own ({@code distlock-events}). The engine publishes an event
 * once the change it tells of is complete, holding none of its locks, and no thread that
 * renews or watches leases ever waits for a listener: a listener may block, or call the
 * registry and its leaderships, without delaying a renewal. A listener that throws is
 * logged and the next event is delivered.
 *
 * <p>
 * The terms of the registry's leaderships are told to the observer on the leadership's
 * thread, then published here. Only a leadership's own thread waits for the delivery of a
 * revocation, before it releases the term's lock; the term's loss actions run on this
 * thread just before the revocation is delivered, so that they too may call back.
 */
final class LockEventPublisher implements LeadershipEvents, AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockRegistry.class);

	private final Consumer<? super LockEvent> eventListener;

	private final LockObserver observer;

	private final Duration closeTimeout;

	private final ExecutorService executor;

	/** The thread that delivers the events, once started. */
	private volatile @Nullable Thread deliverer;

	/**
	 * Create a publisher.
	 * @param eventListener the listener to tell
	 * @param observer told of the terms of the registry's leaderships
	 * @param closeTimeout how long a close waits for the events queued to be delivered,
	 * and a leadership for the delivery of its revocation
	 */
	LockEventPublisher(Consumer<? super LockEvent> eventListener, LockObserver observer, Duration closeTimeout) {
		this.eventListener = eventListener;
		this.observer = observer;
		this.closeTimeout = closeTimeout;
		this.executor = Executors.newSingleThreadExecutor((task) -> {
			Thread thread = DaemonThreads.named("distlock-events").newThread(task);
			this.deliverer = thread;
			return thread;
		});
	}

	void publish(LockEvent event) {
		queue(event, () -> {
		});
	}

	@Override
	public void granted(LockName name, LeadershipGrantedEvent event) {
		this.observer.leadershipGranted(name, event);
		publish(event);
	}

	/**
	 * Queue the revocation for the listener and wait until the listener was told of it,
	 * the registry closed and dropped it, or the close timeout passed (a listener busy
	 * that long is logged, and waited for no longer), whatever interrupts the caller.
	 */
	@Override
	public void revoked(LockName name, LeadershipRevokedEvent event, Runnable first) {
		this.observer.leadershipRevoked(name, event);
		Future<?> delivered = queue(event, first);
		long deadline = System.nanoTime() + this.closeTimeout.toNanos();
		boolean interrupted = false;
		try {
			while (true) {
				try {
					delivered.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
					return;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (TimeoutException ex) {
					logger.warn("Lock event listener still busy " + this.closeTimeout.toMillis() + " ms after " + event
							+ " was published; going on without waiting for its delivery");
					return;
				}
				catch (ExecutionException | CancellationException ex) {
					// A delivery completes normally; a dropped one is cancelled
					return;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Return whether the calling thread is the one telling the listener: a listener
	 * calling back must not wait for what waits for the delivery of a later event.
	 */
	@Override
	public boolean calledByListener() {
		return Thread.currentThread() == this.deliverer;
	}

	/**
	 * Deliver the events queued so far, waiting for them at most the close timeout
	 * (unless called by a listener, which waits for nothing), and accept no more.
	 */
	@Override
	public void close() {
		this.executor.shutdown();
		if (calledByListener()) {
			return;
		}
		try {
			if (!this.executor.awaitTermination(this.closeTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
				logger.warn("Lock event listener still busy " + this.closeTimeout.toMillis()
						+ " ms after the registry closed; the events still queued are dropped");
				dropQueued();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			dropQueued();
		}
	}

	/**
	 * Queue an event to tell the listener of after what runs first, which must not throw.
	 * @return the delivery, done once told, or cancelled when dropped
	 */
	private Future<?> queue(LockEvent event, Runnable first) {
		try {
			return this.executor.submit(() -> deliver(event, first));
		}
		catch (RejectedExecutionException ex) {
			logger.debug("Lock event " + event + " not delivered: the registry is closed");
			return CompletableFuture.completedFuture(null);
		}
	}

	private void deliver(LockEvent event, Runnable first) {
		try {
			first.run();
			this.eventListener.accept(event);
		}
		catch (RuntimeException | Error ex) {
			logger.error("Lock event listener failed for lock '" + event.name() + "'", ex);
		}
	}

	private void dropQueued() {
		for (Runnable dropped : this.executor.shutdownNow()) {
			((Future<?>) dropped).cancel(false);
		}
	}

}
