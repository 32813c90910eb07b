package dev.distlock.redis;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * Wakes waiters when a lock is released. The release script publishes on a channel named
 * after the lock key; a waiter subscribes to it (one subscription per lock key and JVM,
 * shared by reference count) and sleeps until a message arrives or its fallback re-check
 * is due. The subscriptions of the {@value #MAX_IDLE} locks waited for last are kept when
 * nobody waits, so that a lock waited for again and again costs no subscribe round trip.
 *
 * <p>
 * Waiting and connecting happen under {@code java.util.concurrent} locks, never inside a
 * monitor, so that a virtual thread that waits here does not pin its carrier.
 */
final class ReleaseSignals implements AutoCloseable {

	/** Subscriptions kept without waiters, least recently used dropped first. */
	static final int MAX_IDLE = 256;

	private final RedisLockCommands commands;

	/** Guards the subscriptions and the connection. */
	private final Lock lock = new ReentrantLock();

	/**
	 * Read by the pub/sub listener without locking; changed under {@link #lock}.
	 */
	private final Map<String, Signal> signals = new ConcurrentHashMap<>();

	private final Map<String, Signal> idle = new LinkedHashMap<>(16, 0.75f, true);

	private @Nullable StatefulRedisPubSubConnection<String, String> connection;

	ReleaseSignals(RedisLockCommands commands) {
		this.commands = commands;
	}

	/**
	 * Subscribe to the release messages of a lock key, waiting until Redis confirmed the
	 * subscription.
	 * @param channel the lock key
	 * @return the subscription, to be closed when the waiter is done
	 */
	Subscription subscribe(String channel) {
		Signal signal;
		this.lock.lock();
		try {
			signal = this.signals.get(channel);
			if (signal == null) {
				signal = new Signal(pubSub().async().subscribe(channel).toCompletableFuture());
				this.signals.put(channel, signal);
			}
			else if (signal.users == 0) {
				this.idle.remove(channel);
			}
			signal.users++;
		}
		finally {
			this.lock.unlock();
		}
		Subscription subscription = new Subscription(channel, signal);
		try {
			this.commands.await(signal.subscribed, "subscribe to release signals of '" + channel + "'");
		}
		catch (RuntimeException ex) {
			subscription.close();
			throw ex;
		}
		return subscription;
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
	 * Close the pub/sub connection. Not under {@link #lock}: closing waits for Lettuce's
	 * event loop, which may be delivering a message to the listener.
	 */
	@Override
	public void close() {
		StatefulRedisPubSubConnection<String, String> closing;
		this.lock.lock();
		try {
			closing = this.connection;
			this.connection = null;
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
		if (this.signals.remove(channel, signal) && this.connection != null) {
			this.connection.async().unsubscribe(channel);
		}
	}

	private StatefulRedisPubSubConnection<String, String> pubSub() {
		if (this.connection == null) {
			StatefulRedisPubSubConnection<String, String> opened = this.commands.connectPubSub();
			opened.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String channel, String message) {
					fire(channel);
				}

			});
			this.connection = opened;
		}
		return this.connection;
	}

	/**
	 * One waiter's subscription to the release messages of a lock key.
	 */
	final class Subscription implements AutoCloseable {

		private final String channel;

		private final Signal signal;

		private boolean closed;

		private Subscription(String channel, Signal signal) {
			this.channel = channel;
			this.signal = signal;
		}

		/**
		 * Return how many release messages arrived so far, to pass to {@link #await}.
		 */
		long generation() {
			return this.signal.generation();
		}

		/**
		 * Sleep until a release message arrives after the given generation, or the time
		 * is up.
		 */
		void await(long generation, long nanos) throws InterruptedException {
			this.signal.await(generation, nanos);
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
