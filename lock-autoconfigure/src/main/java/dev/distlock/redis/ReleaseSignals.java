package dev.distlock.redis;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * Wakes waiters when a lock is released. The release script publishes on a channel named
 * after the lock key; a waiter subscribes to it (one subscription per lock key and JVM,
 * shared by reference count) and sleeps until a message arrives or its fallback re-check
 * is due.
 */
final class ReleaseSignals implements AutoCloseable {

	private final RedisLockCommands commands;

	private final Map<String, Signal> signals = new HashMap<>();

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
		synchronized (this) {
			signal = this.signals.get(channel);
			if (signal == null) {
				signal = new Signal(pubSub().async().subscribe(channel).toCompletableFuture());
				this.signals.put(channel, signal);
			}
			signal.users++;
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
		Signal signal = signalOf(channel);
		if (signal != null) {
			signal.fire();
		}
	}

	@Override
	public synchronized void close() {
		if (this.connection != null) {
			this.connection.close();
		}
	}

	private synchronized void unsubscribe(String channel, Signal signal) {
		if (--signal.users == 0 && this.signals.remove(channel, signal) && this.connection != null) {
			this.connection.async().unsubscribe(channel);
		}
	}

	private synchronized @Nullable Signal signalOf(String channel) {
		return this.signals.get(channel);
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
		 * Sleep until a release message arrives after the given generation, or the time is up.
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

		private int users;

		private long generation;

		Signal(CompletableFuture<Void> subscribed) {
			this.subscribed = subscribed;
		}

		synchronized long generation() {
			return this.generation;
		}

		synchronized void fire() {
			this.generation++;
			notifyAll();
		}

		synchronized void await(long seen, long nanos) throws InterruptedException {
			long deadline = System.nanoTime() + nanos;
			long remaining = nanos;
			while (this.generation == seen && remaining > 0) {
				TimeUnit.NANOSECONDS.timedWait(this, remaining);
				remaining = deadline - System.nanoTime();
			}
		}

	}

}
