package dev.distlock.redis.connection;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

import dev.distlock.thread.DaemonThreads;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The subscriptions of a {@link SpringDataLockConnection} to grant channels: on a
 * listener container of their own, one listener per channel (a subscription made again
 * replaces the channel's listener), confirmed when the container reports the channel
 * subscribed. Once Redis refused to subscribe, every later subscription fails at once
 * with that refusal.
 */
final class SpringDataReleaseSubscriber implements LockConnection.ReleaseSubscriber {

	private static final Log logger = LogFactory.getLog(SpringDataReleaseSubscriber.class);

	private final Consumer<String> onMessage;

	private final Map<String, ChannelListener> listeners = new ConcurrentHashMap<>();

	private volatile @Nullable Throwable refusal;

	/**
	 * Adds and removes the container's listeners in order, off the callers' threads: the
	 * container may wait for Redis there without a bound a caller could interrupt (a
	 * refused channel on Jedis), and a caller waits for the confirmation within the
	 * command timeout instead.
	 */
	private final ExecutorService registrations = Executors
		.newSingleThreadExecutor(DaemonThreads.named("distlock-release-signals-registration"));

	/**
	 * Runs the container's subscription, and its recovery after a connection failure,
	 * which sleeps between attempts on that thread. Closed before the container,
	 * interrupting a recovery asleep: a recovery that wakes up once the container is
	 * stopping waits for the end of a subscription that never comes.
	 */
	private final SimpleAsyncTaskExecutor subscriptions = new SimpleAsyncTaskExecutor("distlock-release-signals-");

	private final RedisMessageListenerContainer container = new ReleaseSignalsContainer();

	/** Whether {@link #close()} began: a connection failure is not recovered from. */
	private volatile boolean closed;

	/**
	 * The container of this subscriber's listeners, named so that its log has a name of
	 * its own.
	 */
	private final class ReleaseSignalsContainer extends RedisMessageListenerContainer {

		/**
		 * Fail the waiting subscriptions when Redis refused to subscribe, rather than
		 * letting them wait for the command timeout; a connection failure is recovered
		 * from by the container, unless the subscriber is closed. The connection is not
		 * closed after a failed subscription: Spring Data Redis would send
		 * {@code UNSUBSCRIBE} on it and hand it back to the pool with the reply unread,
		 * so that every later command on it would read the reply of the command before.
		 * The connection stays out of the pool instead.
		 */
		@Override
		protected void handleSubscriptionException(CompletableFuture<Void> future, BackOffExecution backOffExecution,
				Throwable cause) {
			if (SpringDataReleaseSubscriber.this.closed) {
				future.completeExceptionally(cause);
				return;
			}
			if (cause instanceof RedisConnectionFailureException) {
				super.handleSubscriptionException(future, backOffExecution, cause);
				return;
			}
			if (ErrorReplies.refusal(cause) != null) {
				SpringDataReleaseSubscriber.this.refusal = cause;
			}
			SpringDataReleaseSubscriber.this.listeners.values()
				.forEach((listener) -> listener.confirmed.completeExceptionally(cause));
			future.completeExceptionally(cause);
		}

	}

	SpringDataReleaseSubscriber(RedisConnectionFactory factory, Consumer<String> onMessage) {
		this.onMessage = onMessage;
		this.subscriptions.setDaemon(true);
		this.subscriptions.setCancelRemainingTasksOnClose(true);
		ExponentialBackOff recovery = new ExponentialBackOff(100, 2);
		recovery.setMaxInterval(2000);
		this.container.setConnectionFactory(factory);
		this.container.setSubscriptionExecutor(this.subscriptions);
		this.container.setTaskExecutor(new SyncTaskExecutor());
		this.container.setRecoveryBackoff(recovery);
		this.container.afterPropertiesSet();
		this.container.start();
	}

	@Override
	public CompletableFuture<Void> subscribe(String channel) {
		Throwable refused = this.refusal;
		if (refused != null) {
			return CompletableFuture.failedFuture(refused);
		}
		ChannelListener listener = new ChannelListener();
		ChannelListener replaced = this.listeners.put(channel, listener);
		ChannelTopic topic = new ChannelTopic(channel);
		try {
			this.registrations.execute(() -> {
				try {
					if (replaced != null) {
						// Subscribed again after a failure: one listener per channel, or
						// every message would reach the waiters once per attempt
						this.container.removeMessageListener(replaced, topic);
					}
					this.container.addMessageListener(listener, topic);
				}
				catch (RuntimeException ex) {
					listener.confirmed.completeExceptionally(ex);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			listener.confirmed.completeExceptionally(ex);
		}
		return listener.confirmed;
	}

	@Override
	public void close() {
		this.closed = true;
		this.registrations.shutdownNow();
		this.subscriptions.close();
		try {
			this.container.destroy();
		}
		catch (Exception ex) {
			logger.debug("Closing the lock release signals' listener container failed", ex);
		}
	}

	/**
	 * Wakes the waiters of one channel, and confirms its subscription.
	 */
	private final class ChannelListener implements MessageListener, SubscriptionListener {

		private final CompletableFuture<Void> confirmed = new CompletableFuture<>();

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			SpringDataReleaseSubscriber.this.onMessage.accept(new String(message.getBody(), StandardCharsets.UTF_8));
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			this.confirmed.complete(null);
		}

	}

}
