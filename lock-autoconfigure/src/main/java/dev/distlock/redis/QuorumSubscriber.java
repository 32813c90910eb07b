package dev.distlock.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.distlock.redis.connection.LockConnection;

/**
 * Subscriptions to grant channels on every node of a Redlock quorum, one pub/sub
 * connection per node: a grant or release message from any node is heard, and a
 * subscription counts once a majority of the nodes confirmed it.
 */
final class QuorumSubscriber implements LockConnection.ReleaseSubscriber {

	private final List<CompletableFuture<LockConnection.ReleaseSubscriber>> nodes;

	private final Quorum quorum;

	/**
	 * Create the subscriber.
	 * @param nodes each node's subscriber, opened or failing
	 * @param quorum the arithmetic of the quorum
	 */
	QuorumSubscriber(List<CompletableFuture<LockConnection.ReleaseSubscriber>> nodes, Quorum quorum) {
		this.nodes = nodes;
		this.quorum = quorum;
	}

	@Override
	public CompletableFuture<Void> subscribe(String channel) {
		// An answer counts when it is not null
		List<CompletableFuture<Boolean>> subscribed = this.nodes.stream()
			.map((node) -> node.thenCompose((subscriber) -> subscriber.subscribe(channel))
				.thenApply((confirmed) -> true))
			.toList();
		return this.quorum
			.gather(subscribed,
					(tally) -> tally.answered() >= this.quorum.majority() || this.quorum.isLost(tally.failed()))
			.thenApply((tally) -> {
				if (tally.answered() < this.quorum.majority()) {
					throw this.quorum.unreachable(tally, "subscribe to lock grants on '" + channel + "'");
				}
				return null;
			});
	}

	@Override
	public void unsubscribe(String channel) {
		each((subscriber) -> subscriber.unsubscribe(channel));
	}

	@Override
	public void close() {
		each(LockConnection.ReleaseSubscriber::close);
	}

	private void each(Consumer<LockConnection.ReleaseSubscriber> action) {
		this.nodes.forEach((node) -> node.thenAccept(action));
	}

}
