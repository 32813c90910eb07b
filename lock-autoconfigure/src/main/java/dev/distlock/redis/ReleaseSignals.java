package dev.distlock.redis;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import dev.distlock.DistributedLockException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Wakes waiters when a lock is released. The release script publishes on a channel named
 * after the lock key; a waiter subscribes to it (one subscription per lock key and JVM,
 * shared by reference count) and sleeps until a message arrives or its fallback re-check
 * is due. The subscriptions of the {@value #MAX_IDLE} locks waited for last are kept when
 * nobody waits, so that a lock waited for again and again costs no subscribe round trip.
 *
 * <p>
 * When Redis refuses {@code SUBSCRIBE} (an ACL user without the command, a managed Redis
 * that disables pub/sub), waiters poll instead, from now on: they re-check after
 * {@value #FIRST_POLL_MILLIS} ms, then twice as long each time up to
 * {@value #MAX_POLL_MILLIS} ms, never later than the holder's lease would run out. This
 * JVM's own releases still wake them at once. The switch is logged once, at WARN.
 *
 * <p>
 * Waiting and connecting happen under {@code java.util.concurrent} locks, never inside a
 * monitor, so that a virtual thread that waits here does not pin its carrier.
 */
final class ReleaseSignals implements AutoCloseable {

	/** Subscriptions kept without waiters, least recently used dropped first. */
	static final int MAX_IDLE = 256;

	/** The first re-check of a waiter that polls, in milliseconds. */
	static final long FIRST_POLL_MILLIS = 10;

	/** The longest time between two re-checks of a waiter that polls, in milliseconds. */
	static final long MAX_POLL_MILLIS = 200;

	private static final Log logger = LogFactory.getLog(ReleaseSignals.class);

	private final RedisLockCommands commands;

	/** Guards the subscriptions and the connection. */
	private final Lock lock = new ReentrantLock();

	/**
	 * Read by the pub/sub listener without locking; changed under {@link #lock}.
	 */
	private final Map<String, Signal> signals = new ConcurrentHashMap<>();

	private final Map<String, Signal> idle = new LinkedHashMap<>(16, 0.75f, true);

	private LockConnection.@Nullable ReleaseSubscriber subscriber;

	/** Whether Redis refused a subscription, so that waiters poll. */
	private volatile boolean polling;

	ReleaseSignals(RedisLockCommands commands) {
		this.commands = commands;
	}

	/**
	 * Subscribe to the release messages of a lock key, waiting until Redis confirmed the
	 * subscription; once Redis refused one, return a subscription that polls.
	 * @param channel the lock key
	 * @return the subscription, to be closed when the waiter is done
	 */
	Subscription subscribe(String channel) {
		Subscription subscription = join(channel);
		if (this.polling) {
			return subscription;
		}
		try {
			this.commands.await(subscription.signal.subscribed, "subscribe to release signals of '" + channel + "'");
			return subscription;
		}
		catch (RuntimeException ex) {
			subscription.close();
			String refusal = (ex instanceof DistributedLockException) ? ErrorReplies.refusal(ex) : null;
			if (refusal == null) {
				throw ex;
			}
			pollFromNowOn(refusal);
			return join(channel);
		}
	}

	private Subscription join(String channel) {
		this.lock.lock();
		try {
			Signal signal = this.signals.get(channel);
			if (signal == null || (this.polling && signal.subscribed.isCompletedExceptionally())) {
				signal = new Signal(
						this.polling ? CompletableFuture.completedFuture(null) : subscriber().subscribe(channel));
				this.signals.put(channel, signal);
			}
			else if (signal.users == 0) {
				this.idle.remove(channel);
			}
			signal.users++;
			return new Subscription(channel, signal, this.polling);
		}
		finally {
			this.lock.unlock();
		}
	}

	private void pollFromNowOn(String refusal) {
		this.lock.lock();
		try {
			if (this.polling) {
				return;
			}
			this.polling = true;
		}
		finally {
			this.lock.unlock();
		}
		logger.warn("Redis refused to subscribe to lock release signals (" + refusal
				+ "); waiting for locks polls Redis instead, every " + FIRST_POLL_MILLIS
				+ " ms at first and at most every " + MAX_POLL_MILLIS + " ms");
	}

	/**
	 * Wake this JVM's waiters on a channel without a message from Redis.
	 * @param channel the lock key
	 */
	void fire(String channel) {
		Signal signal = this.signals.get(channel);
		if (signal != null) {
			signal.fire();
		}
	}

	/**
	 * Close the pub/sub connection. Not under {@link #lock}: closing waits for the
	 * driver, which may be delivering a message to the listener.
	 */
	@Override
	public void close() {
		LockConnection.ReleaseSubscriber closing;
		this.lock.lock();
		try {
			closing = this.subscriber;
			this.subscriber = null;
		}
		finally {
			this.lock.unlock();
		}
		if (closing != null) {
			closing.close();
		}
	}

	private void unsubscribe(String channel, Signal signal) {
		this.lock.lock();
		try {
			if (--signal.users > 0) {
				return;
			}
			if (signal.subscribed.isCompletedExceptionally()) {
				drop(channel, signal);
				return;
			}
			this.idle.put(channel, signal);
			if (this.idle.size() > MAX_IDLE) {
				Iterator<Map.Entry<String, Signal>> eldest = this.idle.entrySet().iterator();
				Map.Entry<String, Signal> dropped = eldest.next();
				eldest.remove();
				drop(dropped.getKey(), dropped.getValue());
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private void drop(String channel, Signal signal) {
		if (this.signals.remove(channel, signal) && this.subscriber != null
				&& !signal.subscribed.isCompletedExceptionally() && !this.polling) {
			this.subscriber.unsubscribe(channel);
		}
	}

	private LockConnection.ReleaseSubscriber subscriber() {
		LockConnection.ReleaseSubscriber current = this.subscriber;
		if (current == null) {
			current = this.commands.subscriber(this::fire);
			this.subscriber = current;
		}
		return current;
	}

	/**
	 * One waiter's subscription to the release messages of a lock key.
	 */
	final class Subscription implements AutoCloseable {

		private final String channel;

		private final Signal signal;

		private boolean closed;

		/** How long the next wait lasts at most when polling; 0 when subscribed. */
		private long pollNanos;

		private Subscription(String channel, Signal signal, boolean polling) {
			this.channel = channel;
			this.signal = signal;
			this.pollNanos = polling ? TimeUnit.MILLISECONDS.toNanos(FIRST_POLL_MILLIS) : 0;
		}

		/**
		 * Return how many release messages arrived so far, to pass to {@link #await}.
		 */
		long generation() {
			return this.signal.generation();
		}

		/**
		 * Sleep until a release message arrives after the given generation, or the time
		 * is up; when polling, at most until the next re-check is due.
		 */
		void await(long generation, long nanos) throws InterruptedException {
			long wait = nanos;
			if (this.pollNanos > 0) {
				wait = Math.min(nanos, this.pollNanos);
				this.pollNanos = Math.min(2 * this.pollNanos, TimeUnit.MILLISECONDS.toNanos(MAX_POLL_MILLIS));
			}
			this.signal.await(generation, wait);
		}

		@Override
		public void close() {
			if (!this.closed) {
				this.closed = true;
				unsubscribe(this.channel, this.signal);
			}
		}

	}

	/**
	 * Counts the release messages of one channel and wakes the threads waiting for one.
	 */
	private static final class Signal {

		private final CompletableFuture<Void> subscribed;

		private final Lock lock = new ReentrantLock();

		private final Condition fired = this.lock.newCondition();

		/** Subscribers; guarded by the enclosing {@code ReleaseSignals}' lock. */
		private int users;

		private long generation;

		Signal(CompletableFuture<Void> subscribed) {
			this.subscribed = subscribed;
		}

		long generation() {
			this.lock.lock();
			try {
				return this.generation;
			}
			finally {
				this.lock.unlock();
			}
		}

		void fire() {
			this.lock.lock();
			try {
				this.generation++;
				this.fired.signalAll();
			}
			finally {
				this.lock.unlock();
			}
		}

		void await(long seen, long nanos) throws InterruptedException {
			this.lock.lock();
			try {
				long remaining = nanos;
				while (this.generation == seen && remaining > 0) {
					remaining = this.fired.awaitNanos(remaining);
				}
			}
			finally {
				this.lock.unlock();
			}
		}

	}

}
