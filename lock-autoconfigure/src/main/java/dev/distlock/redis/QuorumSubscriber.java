package dev.distlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import dev.distlock.redis.connection.LockConnection;

/**
 * Subscriptions to grant channels on every node of a Redlock quorum, one pub/sub
 * connection per node: a grant or release message from any node is heard, and a
 * subscription counts once a majority of the nodes confirmed it.
 *
 * <p>
 * Each node's connection is opened from a thread of the quorum's own
 * ({@link QuorumNode#open}). One whose opening failed (the node was down or unreachable)
 * is opened again at the next subscription or {@link #reopen()}, one attempt at a time
 * per node, and subscribed to every channel subscribed so far once open; an open
 * connection is restored by its driver after a reconnect.
 */
final class QuorumSubscriber implements LockConnection.ReleaseSubscriber {

	private final List<QuorumNode> nodes;

	private final Consumer<String> onMessage;

	private final Quorum quorum;

	/** The channels subscribed, which a node's reopened subscriber subscribes again. */
	private final Set<String> channels = ConcurrentHashMap.newKeySet();

	/** Each node's last attempt to open its subscriber, in the order of the nodes. */
	private final List<CompletableFuture<LockConnection.ReleaseSubscriber>> opened;

	/** Whether closed: no node's subscriber is opened again. */
	private volatile boolean closed;

	/**
	 * Create the subscriber, opening a connection to each node.
	 * @param nodes the nodes
	 * @param onMessage told the text of every message of every node
	 * @param quorum how the nodes' replies decide a subscription
	 */
	QuorumSubscriber(List<QuorumNode> nodes, Consumer<String> onMessage, Quorum quorum) {
		this.nodes = nodes;
		this.onMessage = onMessage;
		this.quorum = quorum;
		this.opened = new ArrayList<>(nodes.stream().map(this::open).toList());
	}

	@Override
	public CompletableFuture<Void> subscribe(String channel) {
		// Before the openings are read: a connection opened since subscribes it too
		this.channels.add(channel);
		// An answer counts when it is not null
		List<CompletableFuture<Boolean>> subscribed = opened().stream()
			.map((node) -> node.thenCompose((subscriber) -> subscriber.subscribe(channel))
				.thenApply((confirmed) -> true))
			.toList();
		return this.quorum.answered(subscribed, "subscribe to lock grants on '" + channel + "'")
			.thenApply((tally) -> null);
	}

	/**
	 * Open again, without waiting, the connection of every node whose last opening
	 * failed.
	 */
	@Override
	public void reopen() {
		opened();
	}

	@Override
	public void close() {
		this.closed = true;
		// Read after closing: with any opening begun meanwhile, and none begins later
		opened().forEach((node) -> node.thenAccept(LockConnection.ReleaseSubscriber::close));
	}

	/**
	 * Return each node's subscriber, opened or being opened, after opening again those
	 * whose last opening failed, unless closed. Nothing waits here: a node's subscriber
	 * is opened from a thread of the quorum's own.
	 */
	private synchronized List<CompletableFuture<LockConnection.ReleaseSubscriber>> opened() {
		for (int i = 0; i < this.nodes.size() && !this.closed; i++) {
			if (this.opened.get(i).isCompletedExceptionally()) {
				this.opened.set(i, open(this.nodes.get(i)));
			}
		}
		return List.copyOf(this.opened);
	}

	/**
	 * Open a node's subscriber from a thread of the quorum's own, and subscribe it to the
	 * channels subscribed so far.
	 */
	private CompletableFuture<LockConnection.ReleaseSubscriber> open(QuorumNode node) {
		return node.open(() -> {
			LockConnection.ReleaseSubscriber subscriber = node.subscriber(this.onMessage);
			this.channels.forEach(subscriber::subscribe);
			return subscriber;
		});
	}

}
