package dev.distlock.redis;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

import dev.distlock.DistributedLockException;
import dev.distlock.redis.connection.ErrorReplies;
import dev.distlock.redis.connection.LockConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Wakes this JVM's waiters when a lock is granted to them or released. Every registry
 * listens on a channel of its own ({@link #channel()}), named in its queue entries; a
 * release that grants a lock to one of its waiters, or wakes it to re-check, publishes
 * the lock key there, and only there. The channel is subscribed once, when the first
 * waiter needs it, and kept until the registry closes. Releases within this JVM wake its
 * waiters without a message ({@link #fire}).
 *
 * <p>
 * When Redis refuses {@code SUBSCRIBE} (an ACL user without the command, a managed Redis
 * that disables pub/sub), waiters poll instead, from now on: they re-check after
 * {@value #FIRST_POLL_MILLIS} ms, then twice as long each time up to
 * {@value #MAX_POLL_MILLIS} ms, never later than the holder's lease would run out, and
 * their grants wait {@value #MAX_POLL_MILLIS} ms longer for them. This JVM's own releases
 * still wake them at once. The switch is logged once, at WARN.
 *
 * <p>
 * Waiting and connecting happen under {@code java.util.concurrent} locks, never inside a
 * monitor, so that a virtual thread that waits here does not pin its carrier.
 */
final class ReleaseSignals implements AutoCloseable {

	/** The first re-check of a waiter that polls, in milliseconds. */
	static final long FIRST_POLL_MILLIS = 10;

	/** The longest time between two re-checks of a waiter that polls, in milliseconds. */
	static final long MAX_POLL_MILLIS = 200;

	/**
	 * The times between the re-checks of a waiter that polls: from
	 * {@value #FIRST_POLL_MILLIS} ms, twice as long each time up to
	 * {@value #MAX_POLL_MILLIS} ms, and never stopping.
	 */
	private static final ExponentialBackOff POLLING = polling();

	private static final Log logger = LogFactory.getLog(ReleaseSignals.class);

	private final RedisLockCommands commands;

	private final String channel;

	/** Guards the signals' users and the subscription. */
	private final Lock lock = new ReentrantLock();

	/**
	 * The signals of the locks waited for, by lock key. Read by the pub/sub listener
	 * without locking; changed under {@link #lock}.
	 */
	private final Map<String, Signal> signals = new ConcurrentHashMap<>();

	private LockConnection.@Nullable ReleaseSubscriber subscriber;

	/** The subscription to {@link #channel}, once asked for. */
	private @Nullable CompletableFuture<Void> subscribed;

	/** Whether Redis refused the subscription, so that waiters poll. */
	private volatile boolean polling;

	/**
	 * Create the signals of one registry.
	 * @param channel the channel this registry's waiters hear their grants on
	 */
	ReleaseSignals(RedisLockCommands commands, String channel) {
		this.commands = commands;
		this.channel = channel;
	}

	/**
	 * Return the channel a waiter of this registry names in its queue entry: empty when
	 * waiters poll.
	 */
	String channel() {
		return this.polling ? "" : this.channel;
	}

	/**
	 * Return whether waiters poll, since Redis refused the subscription.
	 */
	boolean isPolling() {
		return this.polling;
	}

	/**
	 * Return whether a waiter may join the wait queue at once: the channel is subscribed,
	 * or waiters poll.
	 */
	boolean isListening() {
		CompletableFuture<Void> current = this.subscribed;
		return this.polling || (current != null && current.isDone() && !current.isCompletedExceptionally());
	}

	/**
	 * Start waiting for the signals of a lock: subscribe to this registry's channel first
	 * if that is not done yet, waiting until Redis confirmed it; once Redis refused it,
	 * waiters poll.
	 * @param key the lock key
	 * @return the subscription, to be closed when the waiter is done
	 */
	Subscription subscribe(String key) {
		if (!this.polling) {
			CompletableFuture<Void> subscription = subscription();
			try {
				// A copy: a waiter interrupted or out of time cancels its own wait only
				this.commands.await(subscription.copy(), "subscribe to lock grants on '" + this.channel + "'");
			}
			catch (RuntimeException ex) {
				String refusal = (ex instanceof DistributedLockException) ? ErrorReplies.refusal(ex) : null;
				if (refusal == null) {
					forgetUnconfirmed(subscription);
					throw ex;
				}
				pollFromNowOn(refusal);
			}
		}
		return join(key);
	}

	/**
	 * Return the subscription to this registry's channel, subscribing again when the last
	 * attempt failed, otherwise opening again what of the subscriber could not be opened
	 * (a node of a quorum that was down).
	 */
	private CompletableFuture<Void> subscription() {
		this.lock.lock();
		try {
			CompletableFuture<Void> current = this.subscribed;
			if (current == null || current.isCompletedExceptionally()) {
				current = subscriber().subscribe(this.channel);
				this.subscribed = current;
			}
			else {
				subscriber().reopen();
			}
			return current;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Forget a subscription that Redis has not confirmed when a waiter stopped waiting
	 * for it, so that the next waiter subscribes again rather than waiting for a reply
	 * that may never come; the waiters that wait for it meanwhile go on waiting.
	 */
	private void forgetUnconfirmed(CompletableFuture<Void> subscription) {
		this.lock.lock();
		try {
			if (this.subscribed == subscription && !subscription.isDone()) {
				this.subscribed = null;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private Subscription join(String key) {
		this.lock.lock();
		try {
			Signal signal = this.signals.computeIfAbsent(key, (absent) -> new Signal());
			signal.users++;
			return new Subscription(key, signal, this.polling);
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
		logger.warn("Redis refused to subscribe to lock grants (" + refusal
				+ "); waiting for locks polls Redis instead, every " + FIRST_POLL_MILLIS
				+ " ms at first and at most every " + MAX_POLL_MILLIS + " ms");
	}

	/**
	 * Wake this JVM's waiters for a lock.
	 * @param key the lock key
	 */
	void fire(String key) {
		Signal signal = this.signals.get(key);
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

	private void leave(String key, Signal signal) {
		this.lock.lock();
		try {
			if (--signal.users == 0) {
				this.signals.remove(key, signal);
			}
		}
		finally {
			this.lock.unlock();
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

	private static ExponentialBackOff polling() {
		ExponentialBackOff backOff = new ExponentialBackOff(FIRST_POLL_MILLIS, 2);
		backOff.setMaxInterval(MAX_POLL_MILLIS);
		return backOff;
	}

	/**
	 * One waiter's subscription to the signals of a lock.
	 */
	final class Subscription implements AutoCloseable {

		private final String key;

		private final Signal signal;

		private boolean closed;

		/** How long the waits last at most when polling; {@code null} when subscribed. */
		private final @Nullable BackOffExecution polls;

		private Subscription(String key, Signal signal, boolean polling) {
			this.key = key;
			this.signal = signal;
			this.polls = polling ? POLLING.start() : null;
		}

		/**
		 * Return how many signals arrived so far, to pass to {@link #await}.
		 */
		long generation() {
			return this.signal.generation();
		}

		/**
		 * Sleep until a signal arrives after the given generation, or the time is up;
		 * when polling, at most until the next re-check is due.
		 */
		void await(long generation, long nanos) throws InterruptedException {
			long wait = nanos;
			if (this.polls != null) {
				wait = Math.min(nanos, TimeUnit.MILLISECONDS.toNanos(this.polls.nextBackOff()));
			}
			this.signal.await(generation, wait);
		}

		@Override
		public void close() {
			if (!this.closed) {
				this.closed = true;
				leave(this.key, this.signal);
			}
		}

	}

	/**
	 * Counts the signals of one lock and wakes the threads waiting for one.
	 */
	private static final class Signal {

		private final Lock lock = new ReentrantLock();

		private final Condition fired = this.lock.newCondition();

		/** Subscribers; guarded by the enclosing {@code ReleaseSignals}' lock. */
		private int users;

		private long generation;

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
