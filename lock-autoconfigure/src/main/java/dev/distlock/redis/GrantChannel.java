package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import dev.distlock.DistributedLockException;
import dev.distlock.LockName;
import dev.distlock.redis.connection.ErrorReplies;
import dev.distlock.redis.connection.LockConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The channel a registry hears the grants to its waiters on,
 * {@code <key-prefix>!grants:<random id>}: one per registry, covered by an ACL that
 * allows the key prefix's channels, named in its waiters' queue entries. It is subscribed
 * once, when the first waiter needs it, and kept until the registry closes.
 *
 * <p>
 * When Redis refuses {@code SUBSCRIBE} (an ACL user without the command, a managed Redis
 * that disables pub/sub), waiters poll instead, from now on: they re-check after
 * {@value #FIRST_POLL_MILLIS} ms, then twice as long each time up to
 * {@value #MAX_POLL_MILLIS} ms, and their grants wait {@value #MAX_POLL_MILLIS} ms longer
 * for them. The switch is logged once, at WARN.
 *
 * <p>
 * Connecting happens under a {@code java.util.concurrent} lock, never inside a monitor,
 * so that a virtual thread that waits here does not pin its carrier.
 */
final class GrantChannel implements AutoCloseable {

	/** The first re-check of a waiter that polls, in milliseconds. */
	static final long FIRST_POLL_MILLIS = 10;

	/** The longest time between two re-checks of a waiter that polls, in milliseconds. */
	static final long MAX_POLL_MILLIS = 200;

	/** The times between the re-checks of a waiter that polls, which never stop. */
	private static final ExponentialBackOff POLLING = polling();

	private static final Log logger = LogFactory.getLog(ReleaseSignals.class);

	private final RedisLockCommands commands;

	private final String channel;

	private final Consumer<String> onMessage;

	/** Guards the subscriber and the subscription. */
	private final Lock lock = new ReentrantLock();

	private LockConnection.@Nullable ReleaseSubscriber subscriber;

	/** The subscription to {@link #channel}, once asked for. */
	private @Nullable CompletableFuture<Void> subscribed;

	/** Whether Redis refused the subscription, so that waiters poll. */
	private final AtomicBoolean polling = new AtomicBoolean();

	/**
	 * Create the grant channel of one registry.
	 * @param keyPrefix the registry's key prefix, which the channel's name starts with
	 * @param onMessage told the text of every message on the channel
	 */
	GrantChannel(RedisLockCommands commands, String keyPrefix, Consumer<String> onMessage) {
		this.commands = commands;
		this.channel = keyPrefix + LockName.RESERVED + "grants:" + LockTokens.next();
		this.onMessage = onMessage;
	}

	/**
	 * Return the channel a waiter of this registry names in its queue entry: empty when
	 * waiters poll.
	 */
	String name() {
		return this.polling.get() ? "" : this.channel;
	}

	boolean isPolling() {
		return this.polling.get();
	}

	/**
	 * Return whether a waiter may join the wait queue at once: the channel is subscribed,
	 * or waiters poll.
	 */
	boolean isListening() {
		CompletableFuture<Void> current = this.subscribed;
		return this.polling.get() || (current != null && current.isDone() && !current.isCompletedExceptionally());
	}

	/**
	 * Subscribe to the channel if that is not done yet, waiting until Redis confirmed it;
	 * once Redis refused it, waiters poll.
	 */
	void listen() {
		if (this.polling.get()) {
			return;
		}
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

	/**
	 * Return how long a new waiter's waits last at most: its re-checks when waiters poll.
	 * @return the waits, or {@code null} when waiters listen
	 */
	@Nullable BackOffExecution polls() {
		return this.polling.get() ? POLLING.start() : null;
	}

	/**
	 * Return the subscription to the channel, subscribing again when the last attempt
	 * failed, otherwise opening again what of the subscriber could not be opened (a node
	 * of a quorum that was down).
	 */
	private CompletableFuture<Void> subscription() {
		this.lock.lock();
		try {
			CompletableFuture<Void> current = this.subscribed;
			LockConnection.ReleaseSubscriber subscriber = this.subscriber;
			if (current == null || current.isCompletedExceptionally()) {
				if (subscriber == null) {
					subscriber = this.commands.subscriber(this.onMessage);
					this.subscriber = subscriber;
				}
				current = subscriber.subscribe(this.channel);
				this.subscribed = current;
			}
			else if (subscriber != null) {
				// Not after close, which leaves the subscription done
				subscriber.reopen();
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

	private void pollFromNowOn(String refusal) {
		if (this.polling.compareAndSet(false, true)) {
			logger.warn("Redis refused to subscribe to lock grants (" + refusal
					+ "); waiting for locks polls Redis instead, every " + FIRST_POLL_MILLIS
					+ " ms at first and at most every " + MAX_POLL_MILLIS + " ms");
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

	private static ExponentialBackOff polling() {
		ExponentialBackOff backOff = new ExponentialBackOff(FIRST_POLL_MILLIS, 2);
		backOff.setMaxInterval(MAX_POLL_MILLIS);
		return backOff;
	}

}
